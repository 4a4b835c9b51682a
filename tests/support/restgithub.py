"""A second, independent GitHub REST API server, built from GitHub's recorded answers.

Not support.fakegithub: it shares no code or assumption with it. Every body is a real
GitHub object (tests/bot/data/octokit: the repository, issue and label octokit/fixtures
recorded from api.github.com; the pull request and comment of octokit/webhooks' payloads,
which carry the REST objects) with only its identifying fields set. It answers the way
api.github.com does where the bot depends on it: pagination ``Link`` headers whose next
pages live under ``/repositories/{id}/...`` (as recorded), a files listing cut at 3,000, the
``head=owner:branch`` filter of the pull list, ``401 Bad credentials`` without the token,
and ``404`` for anything else, which is also recorded in ``unserved`` so a test can tell
that everything PyGithub asked for was served.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

_DATA = Path(__file__).resolve().parents[1] / "bot" / "data" / "octokit"
FILES_CAP = 3000


def _recorded() -> dict[str, Any]:
    rest = json.loads((_DATA / "rest_responses.json").read_text(encoding="utf-8"))
    hook = json.loads((_DATA / "pull_request_synchronize.payload.json").read_text("utf-8"))
    comment = json.loads((_DATA / "issue_comment_created.payload.json").read_text("utf-8"))
    return {**rest, "pull": hook["pull_request"], "comment": comment["comment"]}


@dataclass
class Pull:
    number: int
    head_sha: str
    head_repo: str | None
    head_ref: str
    files: list[str]
    state: str = "open"
    #: A file's status in the listing when not "added" (modified, removed, ...).
    statuses: dict[str, str] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)
    comments: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Repository:
    """What the server holds: one repository's pull requests."""

    full_name: str
    token: str
    repo_id: int = 4242
    pulls: dict[int, Pull] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    unserved: list[tuple[str, str]] = field(default_factory=list)
    #: An outage: (method, regex searched in the path) -> the status every such request gets.
    failing: dict[tuple[str, str], int] = field(default_factory=dict)
    base: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)
    _next_id: int = 5000

    def open_pull(self, number: int, *, head_sha: str, files: list[str],
                  head_repo: str | None = "contributor/board",
                  head_ref: str = "add-my-run") -> Pull:
        pull = Pull(number, head_sha, head_repo, head_ref, list(files))
        self.pulls[number] = pull
        return pull

    def comment(self, pull: Pull, body: str, login: str) -> dict[str, Any]:
        self._next_id += 1
        made = copy.deepcopy(_recorded()["comment"])
        api = f"{self.base}/repos/{self.full_name}"
        made.update(id=self._next_id, body=body, node_id=f"IC_{self._next_id}",
                    url=f"{api}/issues/comments/{self._next_id}",
                    html_url=f"https://github.com/{self.full_name}/pull/{pull.number}"
                    f"#issuecomment-{self._next_id}",
                    issue_url=f"{api}/issues/{pull.number}")
        made["user"] = {**made["user"], "login": login,
                        "type": "Bot" if login.endswith("[bot]") else "User"}
        pull.comments.append(made)
        return made


class _Handler(BaseHTTPRequestHandler):
    server: RestServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("X-GitHub-Media-Type", "github.v3; format=json")
        self.send_header("X-RateLimit-Limit", "5000")
        self.send_header("X-RateLimit-Remaining", "4999")
        self.send_header("X-RateLimit-Reset", "4102444800")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _not_found(self, method: str) -> None:
        self.server.state.unserved.append((method, self.path))
        self._reply(404, {"message": "Not Found",
                          "documentation_url": "https://docs.github.com/rest"})

    def _handle(self, method: str) -> None:
        state = self.server.state
        with state.lock:
            state.requests.append((method, self.path))
        auth = self.headers.get("Authorization", "")
        if auth not in (f"token {state.token}", f"Bearer {state.token}"):
            self._reply(401, {"message": "Bad credentials",
                              "documentation_url": "https://docs.github.com/rest"})
            return
        url = urlsplit(self.path)
        for (verb, pattern), status in state.failing.items():
            if verb == method and re.search(pattern, url.path):
                self._reply(status, {"message": "Server Error"})
                return
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        path = re.sub(rf"^/repositories/{state.repo_id}(?=/|$)",
                      f"/repos/{state.full_name}", url.path)
        prefix = f"/repos/{state.full_name}"
        if not (path == prefix or path.startswith(prefix + "/")):
            self._not_found(method)
            return
        with state.lock:
            answered = self._route(method, path[len(prefix):], query, body)
        if answered is None:
            self._not_found(method)
        else:
            self._reply(*answered)

    def _route(self, method: str, route: str, query: dict[str, str], body: Any
               ) -> tuple[int, Any] | tuple[int, Any, dict[str, str]] | None:
        state = self.server.state
        if route == "" and method == "GET":
            return 200, self._repository()
        if route == "/pulls" and method == "GET":
            wanted = query.get("state", "open")
            pulls = [p for p in sorted(state.pulls.values(), key=lambda p: -p.number)
                     if wanted in ("all", p.state)
                     and ("head" not in query or query["head"] == self._head_label(p))]
            return self._page([self._pull(p, listed=True) for p in pulls], query, route)
        match = re.fullmatch(r"/(pulls|issues)/(\d+)(/[a-z]+)?(/.+)?", route)
        if match and int(match.group(2)) in state.pulls:
            pull = state.pulls[int(match.group(2))]
            kind, sub, rest = match.group(1), match.group(3), match.group(4)
            if kind == "pulls" and sub is None and method == "GET":
                return 200, self._pull(pull, listed=False)
            if kind == "pulls" and sub == "/files" and rest is None and method == "GET":
                entries = [self._file(name, pull.statuses.get(name, "added"))
                           for name in pull.files[:FILES_CAP]]
                return self._page(entries, query, route)
            if kind == "issues" and sub is None and method == "GET":
                return 200, self._issue(pull)
            if kind == "issues" and sub == "/comments" and rest is None:
                if method == "GET":
                    return self._page(list(pull.comments), query, route)
                if method == "POST":
                    return 201, state.comment(pull, str(body["body"]), "github-actions[bot]")
            if kind == "issues" and sub == "/labels":
                if rest is None and method == "GET":
                    return self._page([self._label(n) for n in pull.labels], query, route)
                if rest is None and method == "POST":
                    names = body["labels"] if isinstance(body, dict) else body
                    pull.labels += [n for n in names if n not in pull.labels]
                    return 200, [self._label(n) for n in pull.labels]
                if rest is not None and method == "DELETE":
                    name = unquote(rest[1:])
                    if name not in pull.labels:
                        return 404, {"message": "Label does not exist"}
                    pull.labels.remove(name)
                    return 200, [self._label(n) for n in pull.labels]
            return None
        match = re.fullmatch(r"/issues/comments/(\d+)", route)
        if match and method == "PATCH":
            for pull in state.pulls.values():
                for comment in pull.comments:
                    if comment["id"] == int(match.group(1)):
                        comment["body"] = str(body["body"])
                        return 200, comment
        return None

    def _page(self, items: list[Any], query: dict[str, str], route: str
              ) -> tuple[int, Any, dict[str, str]]:
        state = self.server.state
        per_page = min(int(query.get("per_page", "30")), 100)
        page = int(query.get("page", "1"))
        last = max(1, -(-len(items) // per_page))
        # as recorded: the pages after the first are addressed by repository id
        where = f"{state.base}/repositories/{state.repo_id}{route}"
        kept = {k: v for k, v in query.items() if k not in ("page", "per_page")}
        extra = "".join(f"&{k}={quote(v)}" for k, v in kept.items())
        links = []
        if page > 1:
            links.append(f'<{where}?per_page={per_page}{extra}&page={page - 1}>; rel="prev"')
        if page < last:
            links.append(f'<{where}?per_page={per_page}{extra}&page={page + 1}>; rel="next"')
            links.append(f'<{where}?per_page={per_page}{extra}&page={last}>; rel="last"')
        if page > 1:
            links.append(f'<{where}?per_page={per_page}{extra}&page=1>; rel="first"')
        chunk = items[(page - 1) * per_page: page * per_page]
        return 200, chunk, ({"Link": ", ".join(links)} if links else {})

    def _repository(self) -> dict[str, Any]:
        state = self.server.state
        repo = copy.deepcopy(_recorded()["repository"])
        owner, name = state.full_name.split("/")
        repo.update(id=state.repo_id, name=name, full_name=state.full_name,
                    url=f"{state.base}/repos/{state.full_name}",
                    html_url=f"https://github.com/{state.full_name}")
        repo["owner"] = {**repo["owner"], "login": owner}
        return repo

    def _head_label(self, pull: Pull) -> str | None:
        return None if pull.head_repo is None else \
            f"{pull.head_repo.split('/')[0]}:{pull.head_ref}"

    def _pull(self, pull: Pull, *, listed: bool) -> dict[str, Any]:
        state = self.server.state
        made = copy.deepcopy(_recorded()["pull"])
        api = f"{state.base}/repos/{state.full_name}"
        made.update(number=pull.number, state=pull.state, url=f"{api}/pulls/{pull.number}",
                    issue_url=f"{api}/issues/{pull.number}",
                    html_url=f"https://github.com/{state.full_name}/pull/{pull.number}",
                    changed_files=len(pull.files))
        made["head"].update(sha=pull.head_sha, ref=pull.head_ref,
                            label=self._head_label(pull) or "unknown")
        if pull.head_repo is None:
            made["head"]["repo"] = None
        else:
            made["head"]["repo"] = {**made["head"]["repo"], "full_name": pull.head_repo,
                                    "name": pull.head_repo.split("/")[1]}
            made["head"]["repo"]["owner"] = {**made["head"]["repo"]["owner"],
                                             "login": pull.head_repo.split("/")[0]}
        made["base"]["repo"] = self._repository()
        if listed:  # the list endpoint leaves out the counts
            for key in ("changed_files", "additions", "deletions", "commits", "comments",
                        "review_comments", "mergeable", "rebaseable", "mergeable_state",
                        "merged", "merged_by", "maintainer_can_modify"):
                made.pop(key, None)
        return made

    def _issue(self, pull: Pull) -> dict[str, Any]:
        state = self.server.state
        made = copy.deepcopy(_recorded()["issue"])
        api = f"{state.base}/repos/{state.full_name}"
        made.update(number=pull.number, state=pull.state, url=f"{api}/issues/{pull.number}",
                    comments=len(pull.comments),
                    labels=[self._label(n) for n in pull.labels],
                    pull_request={"url": f"{api}/pulls/{pull.number}"})
        return made

    def _label(self, name: str) -> dict[str, Any]:
        state = self.server.state
        made = copy.deepcopy(_recorded()["label"])
        made.update(name=name, id=sum(map(ord, name)),
                    url=f"{state.base}/repos/{state.full_name}/labels/{quote(name)}")
        return made

    def _file(self, name: str, status: str) -> dict[str, Any]:
        # GitHub's "diff entry" (List pull requests files)
        return {"sha": "bbcd538c8e72b8c175046e27cc8f907076331401", "filename": name,
                "status": status, "additions": 1, "deletions": 0, "changes": 1,
                "blob_url": f"https://github.com/blob/x/{name}",
                "raw_url": f"https://github.com/raw/x/{name}",
                "contents_url": f"https://api.github.com/contents/{name}",
                "patch": "@@ -0,0 +1 @@\n+x"}

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_DELETE(self) -> None:
        self._handle("DELETE")


class RestServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: Repository) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state
        state.base = f"http://127.0.0.1:{self.server_address[1]}"
