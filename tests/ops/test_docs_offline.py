"""The API docs work offline: Swagger UI and Redoc load every asset from this
server (drf-spectacular-sidecar) and run under the same-origin CSP (issue 18 item 3)."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline_scripts: list[str] = []
        self._in_inline_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("src", "href", "spec-url", "data-url"):
            if attrs.get(name):
                self.urls.append(attrs[name])
        self._in_inline_script = tag == "script" and not attrs.get("src")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_inline_script = False

    def handle_data(self, data):
        if self._in_inline_script and data.strip():
            self.inline_scripts.append(data)


@pytest.mark.parametrize("page", ["/api/docs/", "/api/redoc/"])
def test_docs_page_references_no_external_host(client, page):
    response = client.get(page)
    assert response.status_code == 200
    html = response.content.decode()
    refs = _Refs()
    refs.feed(html)
    assert refs.urls, "the page references its assets"
    for url in refs.urls:
        parts = urlsplit(url)
        assert not parts.netloc and parts.scheme in ("", ), f"{page} references {url}"
    # No inline script: the CSP's script-src 'self' would block it (a blank page).
    assert refs.inline_scripts == []
    assert "http://" not in html and "https://" not in html
    # Every script and stylesheet the page names is served here.
    for url in refs.urls:
        if url.startswith("/static/") or "?script" in url:
            asset = client.get(url)
            assert asset.status_code == 200, url
            body = b"".join(asset.streaming_content) if asset.streaming else asset.content
            assert body, url
        if "?script" in url:
            script = asset.content.decode()
            # Swagger UI's start script loads the schema from here too.
            assert "/api/schema/" in script
            assert "cdn" not in script.lower()


def test_docs_pages_answer_under_the_production_csp(client):
    """The CSP header allows only 'self' for scripts: the pages need nothing else."""
    response = client.get("/api/docs/")
    csp = response.headers.get("Content-Security-Policy", "")
    assert "script-src 'self'" in csp
