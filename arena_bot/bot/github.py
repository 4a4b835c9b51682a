"""The only module that talks to GitHub (through PyGithub), configured from the Actions
environment (GitHub Enterprise works). The token is hidden from ``repr`` and never put in a
message. PyGithub retries rate limits and 5xx answers; what still fails is a GitHubError.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from arena_bot.core.errors import GitHubError

if TYPE_CHECKING:
    from github.PullRequest import PullRequest
    from github.Repository import Repository

DEFAULT_API_URL = "https://api.github.com"
#: The login GitHub gives ``GITHUB_TOKEN``'s comments (that token cannot read ``/user``).
ACTIONS_BOT = "github-actions[bot]"


@dataclass(frozen=True)
class PullHead:
    sha: str
    #: ``owner/name`` of the head repository (the fork); ``None`` when it was deleted.
    repository: str | None
    #: ``open`` or ``closed`` (merged PRs are closed).
    state: str = "open"


@dataclass(frozen=True)
class OpenPull:
    number: int
    head: PullHead


@dataclass(frozen=True)
class FileListing:
    """The files of a PR as the API lists them (at most 3,000) and how many it changes:
    not ``complete`` when files past GitHub's cap were never seen."""

    paths: list[str]
    listed: int
    changed: int
    #: The listed paths the PR does not add: modified, removed, renamed away (the API's
    #: ``status``); a PR adds submissions only.
    not_added: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.listed >= self.changed


@dataclass(frozen=True, kw_only=True)
class GitHubSettings:
    api_url: str
    repository: str
    token: str = field(repr=False)
    #: Whose comments may be the bot's: only these authors' comments are searched for the
    #: marker, so a contributor who pastes it cannot have the bot edit their comment.
    bot_logins: tuple[str, ...] = (ACTIONS_BOT,)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> GitHubSettings:
        """Read the Actions environment; ``ARENA_BOT_LOGIN`` names the token's user when it is
        not ``GITHUB_TOKEN`` (a GitHub App or a personal token comments under that login)."""
        repository = env.get("GITHUB_REPOSITORY", "")
        token = env.get("GITHUB_TOKEN", "")
        if "/" not in repository:
            raise GitHubError(
                "GITHUB_REPOSITORY is not set to owner/name",
                hint="run inside GitHub Actions or export GITHUB_REPOSITORY=owner/name",
            )
        if not token:
            raise GitHubError(
                "GITHUB_TOKEN is not set",
                hint="pass `GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}` in the step's env",
            )
        extra = env.get("ARENA_BOT_LOGIN", "").strip()
        return cls(
            api_url=env.get("GITHUB_API_URL") or DEFAULT_API_URL,
            repository=repository,
            token=token,
            bot_logins=(extra,) if extra else (ACTIONS_BOT,),
        )


@contextmanager
def _api(action: str) -> Iterator[None]:
    """Turn PyGithub's exceptions, and the transport's (a refused connection, a status still
    failing after the retries), into a GitHubError that says what was being done."""
    from github import GithubException
    from requests import RequestException

    try:
        yield
    except GithubException as exc:
        message = exc.data.get("message") if isinstance(exc.data, dict) else None
        raise GitHubError(
            f"GitHub API failed to {action}: HTTP {exc.status} {message or ''}".rstrip(),
            hint=_hint(exc.status),
        ) from None
    except RequestException as exc:
        # urllib3's MaxRetryError inside says why: "too many 502 error responses", or the
        # connection's own error
        reason = getattr(exc.args[0], "reason", None) if exc.args else None
        raise GitHubError(
            f"GitHub API could not be reached to {action}: {reason or exc}",
            hint="GitHub did not answer, or kept answering with a server error: run the job "
            "again later (and check GITHUB_API_URL if it persists)",
        ) from None


def _hint(status: int) -> str:
    """What to do about a failed API call, by its HTTP status."""
    if status == 404:
        return ("GitHub has no such pull request or repository (deleted, transferred, or a "
                "number that does not exist); check GITHUB_REPOSITORY and the PR number")
    if status in (401, 403):
        return ("the token was refused: the comment job needs `pull-requests: write` and "
                "`issues: write`, and a token that has not expired")
    if status == 422:
        return "GitHub refused the request's content (a label or comment it does not accept)"
    return "GitHub answered with an error; run the job again later"


def _head_of(pull: PullRequest) -> PullHead:
    head, repo = pull.head, pull.head.repo
    return PullHead(sha=str(head.sha), repository=str(repo.full_name) if repo else None,
                    state=str(pull.state))


class GitHubClient:
    def __init__(
        self, settings: GitHubSettings, *, retries: int = 3, throttle: bool = True
    ) -> None:
        """``throttle``: PyGithub's pauses (GitHub asks for a second between writes)."""
        from github import Auth, Github, GithubRetry

        self._settings = settings
        retry = GithubRetry(total=retries, backoff_factor=0.01 if retries else 0)
        self._gh = Github(
            auth=Auth.Token(settings.token), base_url=settings.api_url, retry=retry,
            per_page=100, seconds_between_requests=0.25 if throttle else 0.0,
            seconds_between_writes=1.0 if throttle else 0.0,
        )
        self._repo_name = settings.repository
        self._repo_cache: Repository | None = None

    def __repr__(self) -> str:
        return f"GitHubClient(api_url={self._settings.api_url!r}, repo={self._repo_name!r})"

    def _repo(self) -> Repository:  # PyGithub is imported lazily
        if self._repo_cache is None:
            with _api(f"read the repository {self._repo_name}"):
                self._repo_cache = self._gh.get_repo(self._repo_name)
        return self._repo_cache

    def _pull(self, number: int) -> PullRequest:
        with _api(f"read pull request #{number}"):
            return self._repo().get_pull(number)

    def head(self, number: int) -> PullHead:
        return _head_of(self._pull(number))

    def find_head(self, number: int) -> PullHead | None:
        """:meth:`head`, or ``None`` when the repository has no pull request ``number``
        (the API answers 404: never opened, or the number of an issue)."""
        from github import UnknownObjectException

        repo = self._repo()  # a missing repository stays an error of its own
        with _api(f"read pull request #{number}"):
            try:
                return _head_of(repo.get_pull(number))
            except UnknownObjectException:
                return None

    def open_pulls_from(self, head_repository: str, branch: str) -> list[OpenPull]:
        """The open PRs of this repository whose head is ``branch`` of ``head_repository``
        (``owner/name``), as the API lists them (its ``head`` filter names the owner)."""
        owner = head_repository.split("/", 1)[0]
        found: list[OpenPull] = []
        with _api(f"list the open pull requests from {owner}:{branch}"):
            for pull in self._repo().get_pulls(state="open", head=f"{owner}:{branch}"):
                repo = pull.head.repo
                found.append(OpenPull(number=int(pull.number), head=PullHead(
                    sha=str(pull.head.sha),
                    repository=str(repo.full_name) if repo else None)))
        return found

    def file_listing(self, number: int) -> FileListing:
        """The PR's files as listed (all pages; renames give both old and new path) and its
        ``changed_files`` count, to tell a listing cut at GitHub's cap from a whole one."""
        pull = self._pull(number)
        paths: list[str] = []
        not_added: list[str] = []
        listed = 0
        with _api(f"list the files of pull request #{number}"):
            changed = int(pull.changed_files)
            for item in pull.get_files():
                listed += 1
                paths.append(item.filename)
                if item.status not in ("added", "copied"):
                    not_added.append(item.filename)
                if item.previous_filename:
                    paths.append(item.previous_filename)
                    not_added.append(item.previous_filename)
        return FileListing(paths=paths, listed=listed, changed=changed, not_added=not_added)

    def upsert_comment(self, number: int, *, body: str, marker: str) -> tuple[str, bool]:
        """Edit the PR's one comment carrying ``marker``, or create it; (URL, created).

        Only comments written by the bot's own logins count: anyone can paste the marker
        into a comment of theirs, and the bot must not edit (or vouch through) theirs.
        """
        issue = self._issue(number)
        authors = set(self._settings.bot_logins)
        with _api(f"list the comments of pull request #{number}"):
            mine = [
                c for c in issue.get_comments()
                if marker in (c.body or "") and c.user is not None and c.user.login in authors
            ]
        if mine:
            with _api("edit the bot comment"):
                mine[0].edit(body)
            return str(mine[0].html_url), False
        with _api(f"comment on pull request #{number}"):
            created = issue.create_comment(body)
        return str(created.html_url), True

    def set_labels(self, number: int, *, wanted: set[str], managed: tuple[str, ...]) -> None:
        """Add the ``wanted`` labels and remove the other ``managed`` ones; leave the rest."""
        issue = self._issue(number)
        with _api(f"read the labels of pull request #{number}"):
            current = {label.name for label in issue.get_labels()}
        with _api(f"label pull request #{number}"):
            for name in sorted(set(managed) & current - wanted):
                issue.remove_from_labels(name)
            missing = sorted(wanted - current)
            if missing:
                issue.add_to_labels(*missing)

    def _issue(self, number: int):  # type: ignore[no-untyped-def]
        # Issue endpoints (comments, labels) are what a PR's conversation uses.
        with _api(f"read pull request #{number}"):
            return self._repo().get_issue(number)
