"""Starts mistral-vibe's `vibe-acp` against the loopback mock (standard library only; run as a
script, it replaces itself with the agent, so no process of ours stays between the client and
the agent).

Vibe takes its provider's base URL from configuration only (`[[providers]] api_base`, merged by
name over the built-in `mistral` provider). Any configuration field can also come from a `VIBE_`
variable (pydantic-settings, JSON for a list), so this reads the mock's URL from
`MISTRAL_MOCK_URL` (set per run, once the mock has a port) and hands Vibe its `mistral` provider on
that URL through `VIBE_PROVIDERS`: the Mistral backend (the `mistralai` SDK, Chat Completions
over SSE), the key from `MISTRAL_API_KEY`.

    python mistral_vibe_launch.py VIBE_ACP [ARGS…]"""

from __future__ import annotations

import json
import os
import sys


def providers(base_url: str) -> list[dict[str, object]]:
    return [
        {
            "name": "mistral",
            "api_base": base_url.rstrip("/") + "/v1",
            "api_key_env_var": "MISTRAL_API_KEY",
            "backend": "mistral",
        }
    ]


if __name__ == "__main__":
    url = os.environ.get("MISTRAL_MOCK_URL")
    if not url:
        sys.exit("mistral_vibe_launch: set MISTRAL_MOCK_URL to the mock's URL")
    os.environ["VIBE_PROVIDERS"] = json.dumps(providers(url))
    os.execv(sys.argv[1], sys.argv[1:])
