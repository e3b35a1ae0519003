"""``python -m leanread`` runs the command line."""

from .cli.main import main

main()
