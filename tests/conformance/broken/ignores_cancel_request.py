"""The base agent (base.py) ignoring `$/cancel_request` (`Bugs.ignores_cancel_request`, not a
bug: the receiver "MAY cancel" and must only answer): it gets no MUST failure."""

from tests.conformance.broken.base import Bugs, serve

serve(Bugs(ignores_cancel_request=True))
