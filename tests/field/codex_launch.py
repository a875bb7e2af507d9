"""Starts codex-acp against the loopback mock (standard library only; run as a script, it replaces
itself with the agent, so no process of ours stays between the client and the agent).

Codex 0.166.0 (under codex-acp 2.6.0) no longer reads `OPENAI_BASE_URL`: its base URL comes from
configuration only. This reads the mock's URL from `OPENAI_BASE_URL` (set per run, once the mock
has a port) and hands Codex a model provider on that URL through `CODEX_CONFIG`, codex-acp's JSON
merged into each session's configuration: the Responses API over HTTP (no WebSocket), the key from
`OPENAI_API_KEY`, no retries (a failure shows at once).

    python codex_launch.py NODE CODEX_ACP_INDEX_JS [ARGS…]"""

from __future__ import annotations

import json
import os
import sys


def provider(base_url: str) -> dict[str, object]:
    return {
        "model_provider": "mock",
        "model_providers": {
            "mock": {
                "name": "loopback mock",
                "base_url": base_url.rstrip("/") + "/v1",
                "env_key": "OPENAI_API_KEY",
                "wire_api": "responses",
                "supports_websockets": False,
                "request_max_retries": 0,
                "stream_max_retries": 0,
            }
        },
    }


if __name__ == "__main__":
    url = os.environ.get("OPENAI_BASE_URL")
    if not url:
        sys.exit("codex_launch: set OPENAI_BASE_URL to the mock's URL")
    os.environ["CODEX_CONFIG"] = json.dumps(provider(url))
    os.execvp(sys.argv[1], sys.argv[1:])
