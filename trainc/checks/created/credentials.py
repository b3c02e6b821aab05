"""Credentials written as literal env values, which ``trainc compile`` would copy into git.

The Kubeflow SDK, and many a hand-written TrainJob, put a HuggingFace token or an S3
secret key into an ``env`` entry as ``value:``. On a cluster that value sits in the
TrainJob object; compiled by trainc it lands in the rendered manifests in git, where
every reader of the repository, and every clone, has it. The remedy is a Secret,
referenced with ``valueFrom.secretKeyRef`` (or ``envFrom.secretRef``, or an initializer's
``secretRef``).

The check reads the resolved JobSet, so it sees every env entry the pods get, wherever it
was written: the TrainJob's ``trainer.env`` and initializer ``env``, the runtime's
templates, the runtime patches. Each finding sits on the line the value came from
(:mod:`.locate`) and names the variable, never the value.

Which names look like credentials. A name is split into words (at ``_``, ``-``, ``.``
and lower-to-upper case changes) and judged by its last word, the one that says what the
value is: ``HF_TOKEN``, ``AWS_SESSION_TOKEN``, ``CLIENT_SECRET``, ``DB_PASSWORD``,
``WANDB_API_KEY``, ``AWS_SECRET_ACCESS_KEY``. Earlier words only qualify it, so
``TOKENIZERS_PARALLELISM``, ``MAX_TOKENS``, ``SECRET_NAME``, ``TOKEN_PATH`` and
``AWS_ACCESS_KEY_ID`` (an identifier that is useless without its secret) are left alone.
A last word *ending* in a credential word counts too (``HFTOKEN``, ``OPENAI_APIKEY``),
except for ``KEY``, which ends too many ordinary words; ``KEY`` counts as the whole last
word unless the word before it names a key of data or a public key (``SORT_KEY``,
``CACHE_KEY``, ``SSH_PUBLIC_KEY``). An empty value, and one made only of ``$(VAR)``
references to other variables, holds no secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from trainc.checks.shared.locate import locate
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, as_list, as_object, get_path
from trainc.resolve.provenance import Derived
from trainc.resolve.resolved import ResolvedJob

COMPILE_PLAINTEXT_CREDENTIAL = Rule(
    "compile.plaintext-credential",
    Severity.ERROR,
    "an env var named like a credential has a literal value, which compile writes to git",
    sensitive=True,
    doc=RuleDoc(
        what=(
            "an env var of an emitted pod whose name says it holds a credential, with a "
            "literal `value:`"
        ),
        section=(
            "`trainc compile` writes every env value of every pod into the rendered "
            "manifests, which\n"
            "live in git: a HuggingFace token or an S3 secret key written as a literal "
            "value (the\n"
            "Kubeflow SDK writes initializer credentials that way) is then readable by "
            "everyone who\n"
            "can read the repository, and stays in its history. The check reads the pods "
            "as compiled,\n"
            "so it sees the TrainJob's `trainer.env` and initializer `env`, the runtime's "
            "templates\n"
            "and the runtime patches alike, and reports each value at the line that wrote "
            "it. It names\n"
            "the variable and never prints the value; the text report does not quote that "
            "line either.\n"
            "The fix: keep the value in a Secret, reference it with "
            "`valueFrom.secretKeyRef` (or\n"
            "`envFrom.secretRef`; an initializer has "
            "`spec.initializer.<dataset|model>.secretRef`), and\n"
            "rotate the credential if it was ever committed.\n"
            "\n"
            "It is an error by default: pre-commit shows the output of a hook only when "
            "the hook\n"
            "fails, so a warning passes every commit unseen while the token lands in "
            "`rendered/`. A\n"
            "repository whose literal values are known to be harmless (test fixtures, a "
            "local\n"
            'cluster\'s dummy token) sets it to `warning` or `"off"` in `rules:`.\n'
            "\n"
            "A name counts as a credential by its last word (words split at `_`, `-`, `.` "
            "and case\n"
            "changes): `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `PASSPHRASE` or `APIKEY`, "
            "also at the\n"
            "end of a longer word (`HFTOKEN`), or exactly `KEY` or `PASS`. So "
            "`HF_TOKEN`,\n"
            "`HUGGING_FACE_HUB_TOKEN`, `AWS_SESSION_TOKEN`, `AWS_SECRET_ACCESS_KEY`, "
            "`WANDB_API_KEY`,\n"
            "`DB_PASSWORD` are reported, while `TOKENIZERS_PARALLELISM`, "
            "`MAX_NEW_TOKENS`,\n"
            "`TOKEN_PATH`, `SECRET_NAME`, `AWS_ACCESS_KEY_ID` (an identifier, useless "
            "without its\n"
            "secret), `SORT_KEY`, `CACHE_KEY`, `SSH_PUBLIC_KEY` and `PWD` are not. An "
            "empty value, or\n"
            "one made only of `$(VAR)` references to other variables, holds no secret and "
            "is not\n"
            "reported.\n"
        ),
    ),
)


CODE: Final = COMPILE_PLAINTEXT_CREDENTIAL.code

#: Last words that say the value is a credential, also at the end of a longer word.
_CREDENTIAL_WORDS: Final = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY")
#: Last words that are a credential only as a whole word.
_WHOLE_WORDS: Final = frozenset({"KEY", "PASS"})
#: Words before ``KEY`` that make it a key of data, or a key meant to be public.
_NOT_SECRET_KEYS: Final = frozenset(
    {"SORT", "PARTITION", "CACHE", "PRIMARY", "FOREIGN", "HASH", "ROUTING", "SHARD", "PUBLIC"}
)
_WORD_BREAK: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS: Final = re.compile(r"[^A-Za-z0-9]+")
#: A reference Kubernetes expands from an earlier variable (``$$`` escapes a dollar).
_REFERENCE: Final = re.compile(r"\$\([^()]*\)")
_POD: Final[FieldPath] = ("template", "spec", "template", "spec")


def looks_like_credential(name: str) -> bool:
    """Whether an env var called ``name`` holds a credential by its name (module docstring)."""
    words = [word.upper() for word in _SEPARATORS.split(_WORD_BREAK.sub("_", name)) if word]
    if not words:
        return False
    last = words[-1]
    if last in _WHOLE_WORDS:
        return last != "KEY" or len(words) == 1 or words[-2] not in _NOT_SECRET_KEYS
    return last.endswith(_CREDENTIAL_WORDS)


def holds_secret(value: object) -> bool:
    """Whether a literal env value may hold secret text: not empty, not only references."""
    return isinstance(value, str) and _REFERENCE.sub("", value).strip() != ""


def check_plaintext_credentials(job: ResolvedJob) -> list[Diagnostic]:
    """A finding per literal credential-named value in the pods' env."""
    found = []
    for path, name, where in _literal_credentials(job):
        message = (
            f"env var {name!r} of container {where} has a literal value: a credential, by "
            "its name, that `trainc compile` writes into the manifests kept in git"
        )
        origin = job.origin((*path, "value"))
        written = origin.cause if isinstance(origin, Derived) else origin
        hint = _hint(written.path)
        found.append(locate(origin, CODE, message, hint=hint))
    return found


def _hint(source: FieldPath) -> str:
    """How to move the value out of git; for a TrainJob initializer, its ``secretRef``."""
    hint = (
        "keep the value in a Secret and reference it: `valueFrom: {secretKeyRef: {name: "
        "<secret>, key: <key>}}`, or load the whole Secret with `envFrom: [{secretRef: "
        "{name: <secret>}}]`"
    )
    match source:
        case ("spec", "initializer", str(step), *_):
            hint += f"; the initializer takes it as spec.initializer.{step}.secretRef"
    return hint + ". Rotate the credential if it was ever committed"


def _literal_credentials(job: ResolvedJob) -> Iterator[tuple[FieldPath, str, str]]:
    """``(path of the env entry, its name, its container in words)`` for each suspect."""
    for job_index, rjob in enumerate(as_list(job.jobset_spec.get("replicatedJobs"))):
        pod = as_object(get_path(as_object(rjob), _POD))
        for kind in ("initContainers", "containers"):
            for index, item in enumerate(as_list(pod.get(kind))):
                container = as_object(item)
                job_name = as_object(rjob).get("name")
                where = f"{container.get('name')!r} of replicatedJob {job_name!r}"
                base = ("replicatedJobs", job_index, *_POD, kind, index)
                for env_index, entry in _env(container):
                    name = entry.get("name")
                    if (
                        isinstance(name, str)
                        and "value" in entry
                        and holds_secret(entry["value"])
                        and looks_like_credential(name)
                    ):
                        yield (*base, "env", env_index), name, where


def _env(container: JsonObject) -> Iterator[tuple[int, JsonObject]]:
    for index, entry in enumerate(as_list(container.get("env"))):
        if isinstance(entry, dict):
            yield index, entry
