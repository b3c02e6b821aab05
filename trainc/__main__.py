"""``python -m trainc`` runs the command line."""

from trainc.cli.main import main

main()
