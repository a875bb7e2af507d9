"""The base agent (base.py) with one bug: `Bugs.drops_answers_at_eof`. Its words are 250 ms apart
(a turn of 5 s), so that the prompt the suite sends before closing stdin is still running when the
end comes, even when the suite's process waits a few seconds for a CPU on a loaded machine."""

from tests.conformance.broken import base

base.WORD_PAUSE = 0.25
base.serve(base.Bugs(drops_answers_at_eof=True))
