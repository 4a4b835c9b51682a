"""A git smart-HTTP server on localhost (``git http-backend`` behind a token check), as
GitHub serves repositories: the data branch's fetch and push are tested over real HTTP."""

from __future__ import annotations

import base64
import subprocess
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit


class _Handler(BaseHTTPRequestHandler):
    server: GitServer

    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        pass

    def _serve(self, method: str) -> None:
        header = self.headers.get("Authorization", "")
        self.server.authorizations.append(header)
        wanted = "Basic " + base64.b64encode(
            f"x-access-token:{self.server.token}".encode()).decode()
        if header.lower() != wanted.lower():
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="GitHub"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        url = urlsplit(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        env = {"GIT_PROJECT_ROOT": str(self.server.root), "GIT_HTTP_EXPORT_ALL": "1",
               "PATH_INFO": url.path, "QUERY_STRING": url.query, "REQUEST_METHOD": method,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "REMOTE_USER": "x-access-token",
               "REMOTE_ADDR": "127.0.0.1", "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
               "PATH": "/usr/bin:/bin"}
        done = subprocess.run(["git", "http-backend"], input=body, env=env,
                              capture_output=True, check=False)
        head, _, payload = done.stdout.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")


class GitServer(ThreadingHTTPServer):
    """Serves the bare repositories under ``root``; only ``token`` (as GitHub's
    ``x-access-token`` basic auth) is let in. ``authorizations`` records what came."""

    daemon_threads = True

    def __init__(self, root: Path, token: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.root, self.token = root, token
        self.authorizations: list[str] = []

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"
