"""leanread for agents that only have a shell: their reading commands (``cat``, ``sed -n``,
``nl -ba | sed -n``, ``head``, ``tail``, ``grep``, ``rg``) answered through a ``Session``'s ledger,
every other command run as it is.

Example::

    from leanread import Session
    from leanread.shell import run_command

    session = Session(["/repo"], id="agent-run-1")
    done = run_command(session, "nl -ba src/app.py | sed -n '40,80p'", cwd="/repo")
    print(done.text, done.status, done.answered)
"""

from .answer import Answered
from .recognise import Passed, Recognised, recognise
from .run import ShellResult, run_command, try_answer

__all__ = ["Answered", "Passed", "Recognised", "ShellResult", "recognise", "run_command", "try_answer"]
