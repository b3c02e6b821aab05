-- Argo CD health check for jobset.x-k8s.io/JobSet, the object trainc compiles each TrainJob
-- into. kustomization.yaml beside this file installs it in argocd-cm under the key
-- resource.customizations.health.jobset.x-k8s.io_JobSet; docs/argocd.md explains it.
--
-- A JobSet runs once and stops, so its health follows the training, as Argo CD's own
-- check of a batch/v1 Job does:
--   Degraded     the JobSet failed (condition Failed, or status.terminalState Failed)
--   Healthy      the JobSet completed (condition Completed, or terminalState Completed)
--   Suspended    spec.suspend is true or the Suspended condition is True, e.g. while
--                Kueue holds the JobSet until its queue admits it
--   Progressing  anything else: not yet seen by the JobSet controller, or running
-- The conditions and their reasons are those the JobSet controller sets:
-- https://github.com/kubernetes-sigs/jobset/blob/main/api/jobset/v1alpha2/jobset_types.go
-- https://github.com/kubernetes-sigs/jobset/blob/main/pkg/constants/constants.go

local QUEUE_LABEL = "kueue.x-k8s.io/queue-name"

-- The condition of the given type whose status is "True", or nil.
local function true_condition(status, condition_type)
  if status == nil or status.conditions == nil then
    return nil
  end
  for _, condition in ipairs(status.conditions) do
    if condition.type == condition_type and condition.status == "True" then
      return condition
    end
  end
  return nil
end

-- "reason: message" of a condition, or the fallback when it says nothing.
local function describe(condition, fallback)
  if condition == nil then
    return fallback
  end
  local reason = condition.reason or ""
  local message = condition.message or ""
  if reason ~= "" and message ~= "" then
    return reason .. ": " .. message
  end
  if message ~= "" then
    return message
  end
  if reason ~= "" then
    return reason
  end
  return fallback
end

-- Job counts over all replicatedJobs, e.g. "2 of 4 Jobs ready, 1 succeeded".
local function job_counts(spec, status)
  local total = 0
  if spec ~= nil and spec.replicatedJobs ~= nil then
    for _, replicated in ipairs(spec.replicatedJobs) do
      total = total + (replicated.replicas or 1)
    end
  end
  local ready, succeeded, failed = 0, 0, 0
  if status ~= nil and status.replicatedJobsStatus ~= nil then
    for _, counts in ipairs(status.replicatedJobsStatus) do
      ready = ready + (counts.ready or 0)
      succeeded = succeeded + (counts.succeeded or 0)
      failed = failed + (counts.failed or 0)
    end
  end
  local text = tostring(ready) .. " of " .. tostring(total) .. " Jobs ready"
  if succeeded > 0 then
    text = text .. ", " .. tostring(succeeded) .. " succeeded"
  end
  if failed > 0 then
    text = text .. ", " .. tostring(failed) .. " failed"
  end
  return text
end

local function health(object)
  local status = object.status
  local spec = object.spec
  local terminal = status ~= nil and status.terminalState or nil

  local failed = true_condition(status, "Failed")
  if failed ~= nil or terminal == "Failed" then
    return "Degraded", describe(failed, "JobSet failed")
  end
  local completed = true_condition(status, "Completed")
  if completed ~= nil or terminal == "Completed" then
    return "Healthy", describe(completed, "JobSet completed")
  end

  local suspended = true_condition(status, "Suspended")
  if (spec ~= nil and spec.suspend == true) or suspended ~= nil then
    local message = describe(suspended, "JobSet is suspended")
    local labels = object.metadata ~= nil and object.metadata.labels or nil
    local queue = labels ~= nil and labels[QUEUE_LABEL] or nil
    if queue ~= nil and queue ~= "" then
      message = message .. " (waiting for admission by Kueue queue " .. queue .. ")"
    end
    return "Suspended", message
  end

  if status == nil or status.replicatedJobsStatus == nil then
    return "Progressing", "waiting for the JobSet controller to create the Jobs"
  end
  local message = "running: " .. job_counts(spec, status)
  if true_condition(status, "StartupPolicyInProgress") ~= nil then
    message = message .. "; Jobs still starting in order"
  end
  local restarts = status.restarts or 0
  if restarts > 0 then
    message = message .. "; restarted " .. tostring(restarts) .. " time(s)"
  end
  return "Progressing", message
end

local hs = {}
hs.status, hs.message = health(obj)
return hs
