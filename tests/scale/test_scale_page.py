"""docs/scale.md shows the nginx config the tests run: its block is deploy/nginx/acp.conf,
byte for byte, and what the page says of it holds (the route map, the sticky rule)."""

from __future__ import annotations

import re

from tests.docs.blocks import PAGES, blocks_of
from tests.paths import ROOT
from tests.services import nginx

PAGE = ROOT / "docs" / "scale.md"


def test_the_page_shows_the_repository_s_nginx_config_byte_for_byte() -> None:
    assert PAGE in PAGES
    shown = [b.text for b in blocks_of(PAGE) if "deploy/nginx/acp.conf" in " ".join(b.words)]
    assert shown == [nginx.TEMPLATE.read_text()]


def test_the_rendered_config_sends_a_connection_id_to_the_route_before_its_dot() -> None:
    text = nginx.render("/tmp/x", "127.0.0.1:1", {"a": 1001, "b": 1002})
    assert not re.findall(r"@(?:PREFIX|LISTEN|ANY|ROUTES)@", text)  # every placeholder filled
    assert "upstream acp_a { server 127.0.0.1:1001; }" in text
    assert "upstream acp_b { server 127.0.0.1:1002; }" in text
    assert '"~^(?<route>[a-z0-9]+)\\." acp_$route;' in text
    assert "default acp_any;" in text
