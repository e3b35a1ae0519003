"""``python -m leanread`` runs the command line."""

from .cli import main

main()
