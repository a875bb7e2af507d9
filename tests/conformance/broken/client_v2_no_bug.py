"""The base v2 client (client_v2_base.py) with no bug: it fails no v2 client case.

Run by path (the suite starts a client in a folder of its own), so the checkout's root is put on
the import path first.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.conformance.broken.client_v2_base import V2ClientBugs, serve

serve(V2ClientBugs())
