"""A small GitHub REST API server for the bot's tests (real HTTP, threaded).

It speaks the endpoints PyGithub calls for the bot: pulls/N, pulls/N/files (paginated with
Link headers), issues/N, issues/N/comments (paginated), issues/comments/ID (PATCH), issues/N/
labels (GET/POST) and labels/NAME (DELETE), under a GitHub Enterprise style ``/api/v3``
prefix. Failures can be queued per request to exercise retries.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

PREFIX = "/api/v3"
TOKEN = "ghs_test_token_never_logged"


@dataclass
class FakePull:
    number: int
    head_sha: str
    files: list[str] = field(default_factory=list)
    #: ``owner/name`` of the head repository (a fork by default); ``None``: deleted fork.
    head_repo: str | None = "contributor/board"
    #: The head branch (the event fixtures' ``head_branch``).
    head_ref: str = "add-my-run"
    state: str = "open"
    comments: list[dict[str, Any]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)


@dataclass
class FakeGitHub:
    """The state the server serves; tests read and change it directly."""

    owner: str = "arena"
    repo: str = "board"
    pulls: dict[int, FakePull] = field(default_factory=dict)
    #: (METHOD, path regex, status, headers, body) answered once before the real handler.
    failures: list[tuple[str, str, int, dict[str, str], dict[str, Any]]] = field(
        default_factory=list
    )
    #: (METHOD, path regex, action) run once after a matching request was answered (a
    #: push landing while the bot works).
    hooks: list[tuple[str, str, Callable[[], None]]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    auth_headers: set[str] = field(default_factory=set)
    base: str = ""
    next_comment_id: int = 1000
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_comment(self, number: int, body: str, user: str = "someone") -> dict[str, Any]:
        self.next_comment_id += 1
        cid = self.next_comment_id
        comment = {
            "id": cid,
            "body": body,
            "user": {"login": user, "id": 1, "type": "User"},
            "url": f"{self.base}/repos/{self.owner}/{self.repo}/issues/comments/{cid}",
            "html_url": f"https://github.example/{self.owner}/{self.repo}/pull/{number}"
            f"#issuecomment-{cid}",
            "issue_url": f"{self.base}/repos/{self.owner}/{self.repo}/issues/{number}",
        }
        self.pulls[number].comments.append(comment)
        return comment


def _page(items: list[Any], query: dict[str, list[str]]) -> tuple[list[Any], int, int]:
    per_page = int(query.get("per_page", ["30"])[0])
    page = int(query.get("page", ["1"])[0])
    last = max(1, -(-len(items) // per_page))
    return items[(page - 1) * per_page : page * per_page], page, last


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length)) if length else None

    def _handle(self, method: str) -> None:
        state = self.server.state
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query)
        with state.lock:
            state.requests.append((method, self.path))
            state.auth_headers.add(self.headers.get("Authorization", ""))
            for i, (m, pattern, status, headers, body) in enumerate(state.failures):
                if m == method and re.fullmatch(pattern, path):
                    del state.failures[i]
                    self._send(status, body, headers)
                    return
        if not path.startswith(PREFIX):
            self._send(404, {"message": "Not Found"})
            return
        route = path[len(PREFIX) :]
        repo = f"/repos/{state.owner}/{state.repo}"
        if route == repo and method == "GET":
            self._send(200, {"id": 1, "name": state.repo, "full_name": f"{state.owner}/"
                             f"{state.repo}", "url": f"{state.base}{repo}",
                             "default_branch": "main"})
        elif not route.startswith(repo + "/"):
            self._send(404, {"message": "Not Found"})
        else:
            self._route(method, route[len(repo) :], query, state)
        with state.lock:
            for i, (m, pattern, action) in enumerate(state.hooks):
                if m == method and re.fullmatch(pattern, path):
                    del state.hooks[i]
                    action()
                    break

    def _route(
        self, method: str, route: str, query: dict[str, list[str]], state: FakeGitHub
    ) -> None:
        base = f"{state.base}/repos/{state.owner}/{state.repo}"
        if route == "/pulls" and method == "GET":
            self._paged(_pull_list(state, query, base), query, f"{base}/pulls")
            return
        match = re.fullmatch(r"/(pulls|issues)/(\d+)(/.*)?", route)
        if match and int(match.group(2)) in state.pulls:
            kind, pull, rest = match.group(1), state.pulls[int(match.group(2))], match.group(3)
            if kind == "pulls" and rest is None and method == "GET":
                self._send(200, _pull_json(pull, base))
            elif kind == "issues" and rest is None and method == "GET":
                self._send(200, _issue_json(pull, base))
            elif kind == "pulls" and rest == "/files" and method == "GET":
                # GitHub lists at most 3,000 files of a PR (`changed_files` counts all)
                files = [_file_json(name) for name in pull.files[:LISTING_CAP]]
                self._paged(files, query, f"{base}/pulls/{pull.number}/files")
            elif kind == "issues" and rest == "/comments" and method == "GET":
                self._paged(list(pull.comments), query, f"{base}/issues/{pull.number}/comments")
            elif kind == "issues" and rest == "/comments" and method == "POST":
                body = self._body()
                with state.lock:
                    comment = state.add_comment(
                        pull.number, body["body"], user="github-actions[bot]"
                    )
                self._send(201, comment)
            elif kind == "issues" and rest == "/labels" and method == "GET":
                self._paged([_label_json(n) for n in pull.labels], query,
                            f"{base}/issues/{pull.number}/labels")
            elif kind == "issues" and rest == "/labels" and method == "POST":
                body = self._body()
                # GitHub accepts a bare array (what PyGithub sends) or {"labels": [...]}
                for name in body["labels"] if isinstance(body, dict) else body:
                    if name not in pull.labels:
                        pull.labels.append(name)
                self._send(200, [_label_json(n) for n in pull.labels])
            elif kind == "issues" and rest and rest.startswith("/labels/") and method == "DELETE":
                name = unquote(rest[len("/labels/") :])
                if name not in pull.labels:
                    self._send(404, {"message": "Label does not exist"})
                    return
                pull.labels.remove(name)
                self._send(200, [_label_json(n) for n in pull.labels])
            else:
                self._send(404, {"message": "Not Found"})
            return
        match = re.fullmatch(r"/issues/comments/(\d+)", route)
        if match and method == "PATCH":
            cid = int(match.group(1))
            for pull in state.pulls.values():
                for comment in pull.comments:
                    if comment["id"] == cid:
                        comment["body"] = self._body()["body"]
                        self._send(200, comment)
                        return
        self._send(404, {"message": "Not Found"})

    def _paged(self, items: list[Any], query: dict[str, list[str]], url: str) -> None:
        chunk, page, last = _page(items, query)
        per_page = query.get("per_page", ["30"])[0]
        links = []
        if page < last:
            links.append(f'<{url}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{url}?per_page={per_page}&page={last}>; rel="last"')
        self._send(200, chunk, {"Link": ", ".join(links)} if links else None)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_DELETE(self) -> None:
        self._handle("DELETE")


def _pull_json(pull: FakePull, base: str) -> dict[str, Any]:
    return {
        "url": f"{base}/pulls/{pull.number}",
        "id": pull.number,
        "number": pull.number,
        "state": pull.state,
        "title": "Add a submission",
        "changed_files": len(pull.files),
        "head": {"sha": pull.head_sha, "ref": pull.head_ref,
                 "label": f"{(pull.head_repo or 'ghost/x').split('/')[0]}:{pull.head_ref}",
                 "repo": None if pull.head_repo is None else {
                     "id": 2, "name": pull.head_repo.split("/")[1],
                     "full_name": pull.head_repo,
                     "owner": {"login": pull.head_repo.split("/")[0]},
                     "url": f"{state_base(base)}/repos/{pull.head_repo}"}},
        "base": {"sha": "f" * 40, "ref": "main", "label": "arena:main"},
        "issue_url": f"{base}/issues/{pull.number}",
    }


#: The most files GitHub's "list pull request files" endpoint returns.
LISTING_CAP = 3000


def _pull_list(state: FakeGitHub, query: dict[str, list[str]], base: str) -> list[Any]:
    """GET /pulls: ``state`` (default open) and ``head`` (``owner:branch``) filters, as the
    real endpoint applies them; the list's items, like GitHub's, omit ``changed_files``."""
    wanted = query.get("state", ["open"])[0]
    head = query.get("head", [None])[0]
    items = []
    for pull in sorted(state.pulls.values(), key=lambda p: -p.number):
        if wanted != "all" and pull.state != wanted:
            continue
        owner = (pull.head_repo or "").split("/")[0]
        if head is not None and (pull.head_repo is None or head != f"{owner}:{pull.head_ref}"):
            continue
        item = _pull_json(pull, base)
        del item["changed_files"]
        items.append(item)
    return items


def state_base(repo_url: str) -> str:
    """The API root of a ``…/repos/owner/name`` URL."""
    return repo_url.rsplit("/repos/", 1)[0]


def _issue_json(pull: FakePull, base: str) -> dict[str, Any]:
    return {
        "url": f"{base}/issues/{pull.number}",
        "id": pull.number,
        "number": pull.number,
        "state": "open",
        "title": "Add a submission",
        "labels": [_label_json(n) for n in pull.labels],
        "pull_request": {"url": f"{base}/pulls/{pull.number}"},
    }


def _file_json(name: str) -> dict[str, Any]:
    return {"sha": "a" * 40, "filename": name, "status": "added", "additions": 1,
            "deletions": 0, "changes": 1}


def _label_json(name: str) -> dict[str, Any]:
    return {"id": abs(hash(name)) % 10**6, "name": name, "color": "ededed"}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: FakeGitHub


def server_for(state: FakeGitHub) -> _Server:
    """A server of ``state`` on a free localhost port (serve it with support.httpserver's
    ``serving``); sets ``state.base``."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.state = state
    state.base = f"http://127.0.0.1:{server.server_address[1]}{PREFIX}"
    return server


def rate_limit_failure(method: str, pattern: str) -> tuple[str, str, int, dict[str, str],
                                                           dict[str, Any]]:
    """A primary rate-limit 403 whose reset time has already come."""
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()))}
    body = {"message": "API rate limit exceeded for installation ID 1.",
            "documentation_url": "https://docs.github.com/rest/overview/rate-limits"}
    return (method, pattern, 403, headers, body)
