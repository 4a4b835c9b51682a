"""Tests of the patch parser and its safety checks, on patches made by real git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.gitrepo import git

from arena_bot.intake.patches import (
    MAX_PROBLEMS,
    ProtectedPaths,
    load_patch,
    parse_patch,
    protected_paths_for,
)
from arena_bot.models.task import Task
from arena_bot.tasks.dataset import TaskFolder


@pytest.fixture(scope="module")
def git_patch(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One staged diff from real git covering edit, add, rename, mode change and a quoted name."""
    repo = tmp_path_factory.mktemp("repo")
    git("init", "-q", cwd=repo)
    (repo / "x.py").write_text("a\nb\nc\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "t.py").write_text("t\n")
    (repo / "gone.py").write_text("bye\n")
    git("add", ".", cwd=repo)
    git("commit", "-qm", "init", cwd=repo)
    (repo / "x.py").write_text("a\nB\nc\nd\n")
    (repo / "x.py").chmod(0o755)
    git("mv", "tests/t.py", "tests/u.py", cwd=repo)
    (repo / "gone.py").unlink()
    (repo / "sp ace.py").write_text("new\n")
    (repo / "é.py").write_text("café")
    git("add", "-A", cwd=repo)
    return git("diff", "--cached", cwd=repo)


def test_git_diff_is_read_file_by_file(git_patch: str) -> None:
    patch = parse_patch(git_patch)
    assert patch.ok, patch.problems
    by_path = {f.path: f for f in patch.files}
    assert by_path["x.py"].status == "modified"
    assert (by_path["x.py"].added, by_path["x.py"].removed) == (2, 1)
    assert (by_path["x.py"].old_mode, by_path["x.py"].new_mode) == ("100644", "100755")
    assert by_path["gone.py"].status == "deleted"
    assert by_path["gone.py"].new_path is None
    assert by_path["gone.py"].removed == 1
    assert by_path["tests/u.py"].status == "renamed"
    assert by_path["tests/u.py"].old_path == "tests/t.py"
    assert by_path["sp ace.py"].status == "added"
    assert by_path["é.py"].status == "added"  # git quoted it as "b/\303\251.py"
    assert set(patch.paths) == {"x.py", "gone.py", "tests/t.py", "tests/u.py", "sp ace.py", "é.py"}
    assert sum(f.added for f in patch.files) == 4
    assert sum(f.removed for f in patch.files) == 2


def test_a_quoted_name_with_a_space_is_read(tmp_path: Path) -> None:
    # git quotes a non-ASCII name and ends a name holding a space with a tab, on the ---/+++
    # lines: '+++ "b/docs/caf\\303\\251 notes.md"<TAB>' (found by `arena submit` of an agent's
    # tree on the real dirty-equals task: the evaluation refused the patch).
    git("init", "-q", cwd=tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "caf\u00e9 notes.md").write_text("caf\u00e9\n")
    (tmp_path / "old name.md").write_text("x\n")
    git("add", ".", cwd=tmp_path)
    git("commit", "-qm", "init", cwd=tmp_path)
    (tmp_path / "docs" / "caf\u00e9 notes.md").write_text("caf\u00e9 au lait\n")
    (tmp_path / "new \u00e9.md").write_text("new\n")
    git("add", "-A", cwd=tmp_path)
    text = git("diff", "--cached", cwd=tmp_path)
    assert '+++ "b/docs/caf\\303\\251 notes.md"\t\n' in text
    patch = parse_patch(text)
    assert patch.ok, patch.problems
    assert set(patch.paths) == {"docs/caf\u00e9 notes.md", "new \u00e9.md"}


def test_plain_diff_u_output_is_accepted() -> None:
    text = (
        "--- a/src/m.py\t2024-01-01 00:00:00.000000000 +0000\n"
        "+++ b/src/m.py\t2024-01-02 00:00:00.000000000 +0000\n"
        "@@ -1,2 +1,2 @@\n"
        " keep\n"
        "-old\n"
        "+new\n"
    )
    patch = parse_patch(text)
    assert patch.ok, patch.problems
    assert patch.paths == ["src/m.py"]


def test_form_feed_inside_a_line_does_not_split_it() -> None:
    text = "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x\x0cy\n+z\n"
    patch = parse_patch(text)
    assert patch.ok, patch.problems
    assert [(f.added, f.removed) for f in patch.files] == [(1, 1)]


def _codes(text: str) -> set[str]:
    return {problem.code for problem in parse_patch(text).problems}


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("a//etc/passwd", "absolute"),
        ("a/../outside.py", "'..'"),
        ("a/src/../../x.py", "'..'"),
        ("a/src\\evil.py", "backslash"),
        ("a/ev\u202eil.py", "control"),
        ("a/zero\u200bwidth.py", "control"),
        ("a/.git/hooks/pre-commit", ".git"),
        ("a/src/./x.py", "'.' component"),
        ("/etc/passwd", "does not start with 'a/'"),
    ],
)
def test_unsafe_paths_are_refused_with_their_line(path: str, fragment: str) -> None:
    new = "b/" + path[2:] if path.startswith("a/") else path
    text = f"--- {path}\n+++ {new}\n@@ -1 +1 @@\n-x\n+y\n"
    patch = parse_patch(text)
    unsafe = [p for p in patch.problems if p.code == "unsafe-path"]
    assert unsafe, patch.problems
    assert fragment in unsafe[0].message
    assert unsafe[0].line == 1


def test_a_patch_without_a_b_prefixes_says_how_to_make_one() -> None:
    """``git diff --no-prefix`` (or ``diff.noprefix`` in a user's git config) writes names
    without ``a/``/``b/``: an honest patch, refused with the command that makes it right."""
    text = ("diff --git src/x.py src/x.py\nindex 1111111..2222222 100644\n--- src/x.py\n"
            "+++ src/x.py\n@@ -1 +1 @@\n-x\n+y\n")
    unsafe = [p for p in parse_patch(text).problems if p.code == "unsafe-path"]
    assert unsafe and "--src-prefix=a/ --dst-prefix=b/" in unsafe[0].message
    assert "no-prefix" in unsafe[0].message


def test_a_patch_with_mnemonic_prefixes_says_which_setting_made_it(tmp_path: Path) -> None:
    """``diff.mnemonicPrefix`` (a common config tip) makes ``git diff <commit>`` write c/ and
    w/ instead of a/ and b/: refused naming that setting, with the command that works."""
    git("init", "-q", cwd=tmp_path)
    (tmp_path / "x.py").write_text("x\n")
    git("add", ".", cwd=tmp_path)
    git("commit", "-qm", "init", cwd=tmp_path)
    (tmp_path / "x.py").write_text("y\n")
    text = git("-c", "diff.mnemonicPrefix=true", "diff", "HEAD", cwd=tmp_path)
    assert "--- c/x.py\n+++ w/x.py\n" in text
    unsafe = [p for p in parse_patch(text).problems if p.code == "unsafe-path"]
    assert unsafe and "`diff.mnemonicPrefix` set" in unsafe[0].message
    assert "--src-prefix=a/ --dst-prefix=b/" in unsafe[0].message
    fixed = git("-c", "diff.mnemonicPrefix=true", "diff", "--src-prefix=a/", "--dst-prefix=b/",
                "HEAD", cwd=tmp_path)
    assert parse_patch(fixed).ok


def test_a_diff_of_two_folders_says_how_to_name_them(tmp_path: Path) -> None:
    """``diff -ruN old new`` (no git) names files under the two folders' names: refused
    saying so, with the command that works; the same diff of folders named a and b is
    accepted, its timestamps and all."""
    for name, text in (("orig", "x\n"), ("work", "y\n"), ("a", "x\n"), ("b", "y\n")):
        (tmp_path / name / "pkg").mkdir(parents=True)
        (tmp_path / name / "pkg" / "x.py").write_text(text)

    def diff(old: str, new: str) -> str:
        return subprocess.run(["diff", "-ruN", old, new], cwd=tmp_path, capture_output=True,
                              text=True, check=False).stdout

    text = diff("orig", "work")
    assert text.startswith("diff -ruN orig/pkg/x.py work/pkg/x.py\n--- orig/pkg/x.py\t")
    unsafe = [p for p in parse_patch(text).problems if p.code == "unsafe-path"]
    assert unsafe and "`diff -ru` of two folders" in unsafe[0].message
    assert "`diff -ruN a b`" in unsafe[0].message
    fixed = parse_patch(diff("a", "b"))
    assert fixed.ok and [f.new_path for f in fixed.files] == ["pkg/x.py"]


def test_quoted_name_with_control_characters_is_refused() -> None:
    text = (
        'diff --git "a/x\\033[2J.py" "b/x\\033[2J.py"\n'
        "new file mode 100644\n"
        "--- /dev/null\n"
        '+++ "b/x\\033[2J.py"\n'
        "@@ -0,0 +1 @@\n"
        "+hi\n"
    )
    assert "unsafe-path" in _codes(text)


def test_symlink_submodule_and_binary_are_refused() -> None:
    symlink = (
        "diff --git a/l b/l\nnew file mode 120000\nindex 0000000..1111111\n"
        "--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n"
    )
    submodule = (
        "diff --git a/sub b/sub\nnew file mode 160000\nindex 0000000..1234567\n"
        "--- /dev/null\n+++ b/sub\n@@ -0,0 +1 @@\n+Subproject commit 1234567\n"
    )
    binary = (
        "diff --git a/b.bin b/b.bin\nindex 1..2 100644\n"
        "Binary files a/b.bin and b/b.bin differ\n"
    )
    git_binary = (
        "diff --git a/b.bin b/b.bin\nnew file mode 100644\nindex 0000000..1111111\n"
        "GIT binary patch\nliteral 3\nKcmZ?wVE_O9\n\nliteral 0\nHcmV?d00001\n"
    )
    assert "symlink" in _codes(symlink)
    assert "submodule" in _codes(submodule)
    assert "binary" in _codes(binary)
    assert _codes(git_binary) == {"binary"}


def test_binary_marker_after_a_plain_header_is_refused() -> None:
    text = "--- a/b.bin\n+++ b/b.bin\nGIT binary patch\nliteral 3\nKcmZ?wVE_O9\n\n"
    assert "binary" in _codes(text)


def test_mode_change_to_symlink_on_index_line_is_refused() -> None:
    text = (
        "diff --git a/x b/x\nindex 1111111..2222222 120000\n"
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    )
    assert "symlink" in _codes(text)


def test_lenient_mode_header_is_refused_not_guessed() -> None:
    text = "diff --git a/x b/x\nold mode  100644\nnew mode  120000\n"
    assert "not-a-diff" in _codes(text)


def test_empty_and_non_diff_text() -> None:
    assert _codes("") == {"empty-patch"}
    assert _codes("  \n\n") == {"empty-patch"}
    problems = parse_patch("hello\nthis is not a patch\n").problems
    assert [p.code for p in problems] == ["not-a-diff"]
    assert problems[0].line == 1


def test_truncated_hunk_names_its_line() -> None:
    text = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n"
    problems = parse_patch(text).problems
    assert [p.code for p in problems] == ["bad-hunk"]
    assert problems[0].line == 3


def _git_reads(text: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """``git apply --numstat`` of ``text`` (no repository needed): does git read the patch?"""
    return subprocess.run(["git", "apply", "--numstat", "-"], input=text.encode(), cwd=cwd,
                          capture_output=True, check=False)


# The shape of OpenHands' ``git_patch`` (nunu0404/Python_OpenHands @ c80bab5,
# evaluation/benchmarks/multi_swe_bench/examples/output.jsonl, ponylang__ponyc-4595): the text
# stripped, so the last hunk line has lost its newline.
STRIPPED = (
    "diff --git a/src/parser.c b/src/parser.c\nindex 9852922f..2c37d6b8 100644\n"
    "--- a/src/parser.c\n+++ b/src/parser.c\n@@ -1,4 +1,5 @@\n   AST_NODE(TK_LET);\n"
    "+  SET_FLAG(AST_FLAG_IN_PARENS);\n   DONE();\n \n // idseq"
)


def test_a_stripped_last_newline_is_refused_as_git_refuses_it(tmp_path: Path) -> None:
    assert _git_reads(STRIPPED, tmp_path).returncode != 0  # "corrupt patch at line 10"
    problems = parse_patch(STRIPPED).problems
    assert [(p.code, p.line) for p in problems] == [("bad-hunk", 10)]
    assert "end the file with a newline" in problems[0].message
    # With its newline, and with git's own marker for a file without one, both read it.
    for text in (STRIPPED + "\n", STRIPPED + "\n\\ No newline at end of file"):
        assert _git_reads(text, tmp_path).returncode == 0
        assert parse_patch(text).ok


def test_a_crlf_header_only_section_is_refused_as_git_refuses_it(tmp_path: Path) -> None:
    # An empty new file and a mode change name their file only in the ``diff --git`` line;
    # saved with CRLF line ends git cannot read that line. Sections with ---/+++ it reads.
    for section in ("diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n",
                    "diff --git a/m b/m\nold mode 100644\nnew mode 100755\n"):
        crlf = section.replace("\n", "\r\n")
        assert _git_reads(section, tmp_path).returncode == 0
        assert _git_reads(crlf, tmp_path).returncode != 0
        assert parse_patch(section).ok
        problems = parse_patch(crlf).problems
        assert [(p.code, p.line) for p in problems] == [("not-a-diff", 1)]
        assert "LF line ends" in problems[0].message
    edit = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n".replace("\n", "\r\n")
    assert _git_reads(edit, tmp_path).returncode == 0
    assert parse_patch(edit).ok


def test_an_empty_crlf_context_line_is_refused_as_git_refuses_it(tmp_path: Path) -> None:
    # SWE-agent's patch of pydicom__pydicom-1458 (SWE-agent/SWE-agent @ 3ea751c, tests/
    # test_data/trajectories/.../pydicom__pydicom-1458.traj) has an empty context line (its
    # space removed); saved with CRLF line ends, git no longer reads that line as context.
    text = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n"
    assert _git_reads(text, tmp_path).returncode == 0
    assert parse_patch(text).ok
    crlf = text.replace("\n", "\r\n")
    assert _git_reads(crlf, tmp_path).returncode != 0  # "corrupt patch at line 5"
    problems = parse_patch(crlf).problems
    assert (problems[0].code, problems[0].line) == ("bad-hunk", 5)
    assert "LF line ends" in problems[0].message
    with_space = crlf.replace("\r\n\r\n", "\r\n \r\n")
    assert _git_reads(with_space, tmp_path).returncode == 0
    assert parse_patch(with_space).ok


def test_a_patch_whose_line_breaks_were_lost_says_so(tmp_path: Path) -> None:
    # SWE-agent's demonstration of sqlfluff__sqlfluff-1625 (ozyyshr/RepoGraph @ 2a8e2d6,
    # SWE-agent/trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__default
    # __t-0.20__p-0.95__c-2.00__install-1___install_from_source/sqlfluff__sqlfluff-1625.traj):
    # its info.submission, every line break a space.
    text = ("\ndiff --git a/src/L031.py b/src/L031.py --- a/src/L031.py +++ b/src/L031.py @@ "
            "-211,7 +211,7 @@ def _lint( violation_buff.append( -    description=\"Avoid\", +"
            "    description=\"Avoid aliases\", )\n")
    assert _git_reads(text, tmp_path).returncode != 0  # "No valid patches in input"
    problems = parse_patch(text).problems
    assert [(p.code, p.line) for p in problems] == [("not-a-diff", 2)]
    assert "line breaks were lost" in problems[0].message


def test_extra_diff_lines_after_a_hunk_are_reported() -> None:
    text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+smuggled\n"
    problems = parse_patch(text).problems
    assert [(p.code, p.line) for p in problems] == [("not-a-diff", 6)]


def test_format_patch_signature_is_not_a_diff_line() -> None:
    text = (
        "From 123 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n---\n x | 2 +-\n\n"
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.2\n"
    )
    patch = parse_patch(text)
    assert patch.ok, patch.problems
    assert patch.paths == ["x"]


def test_size_limits() -> None:
    many = "--- a/x\n+++ b/x\n@@ -0,0 +1,50 @@\n" + "+l\n" * 50
    assert _codes(many) == set()
    assert parse_patch(many, max_lines=20).problems[0].code == "too-large"
    assert parse_patch(many, max_bytes=100).problems[0].code == "too-large"


def test_problems_are_capped_for_hostile_patches() -> None:
    text = "".join(f"--- a/../x{i}\n+++ b/../x{i}\n@@ -1 +1 @@\n-a\n+b\n" for i in range(500))
    problems = parse_patch(text).problems
    assert len(problems) == MAX_PROBLEMS + 1
    assert "more problems" in problems[-1].message


def test_load_patch_refuses_symlinks_missing_and_non_utf8(tmp_path: Path) -> None:
    real = tmp_path / "real.patch"
    real.write_text("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
    link = tmp_path / "link.patch"
    link.symlink_to(real)
    latin = tmp_path / "latin.patch"
    latin.write_bytes(b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+caf\xe9\n")
    assert load_patch(real).ok
    assert [p.code for p in load_patch(link).problems] == ["not-a-file"]
    assert [p.code for p in load_patch(tmp_path / "nope.patch").problems] == ["not-a-file"]
    latin_problems = load_patch(latin).problems
    assert [(p.code, p.line) for p in latin_problems] == [("not-utf8", 5)]



def test_read_patch_text_words_every_refusal_as_pathlib_did(tmp_path: Path) -> None:
    """One lstat replaced is_symlink/exists/is_file/stat: each kind of path keeps its
    message (a dangling link, a folder, a FIFO, a name under a file, a NUL, the size cap),
    and any other error of the lstat is a refusal too (it once escaped as a traceback)."""
    import os

    from arena_bot.intake.patches import read_patch_text

    real = tmp_path / "real.patch"
    real.write_text("x" * 50)
    (tmp_path / "dangling.patch").symlink_to(tmp_path / "gone")
    (tmp_path / "folder.patch").mkdir()
    os.mkfifo(tmp_path / "fifo.patch")
    cases = {
        "dangling.patch": "patch file is a symbolic link; commit the file itself",
        "folder.patch": "patch path is not a regular file",
        "fifo.patch": "patch path is not a regular file",
        "real.patch/under": "patch file is missing (not found)",
        "nul\0.patch": "patch file is missing (not found)",
        "absent.patch": "patch file is missing (not found)",
        "n" * 300 + ".patch": "cannot read patch file: File name too long",
    }
    for name, message in cases.items():
        text, problem = read_patch_text(tmp_path / name)
        assert text == "" and problem is not None, name
        assert (problem.code, problem.message) == ("not-a-file", message), name
    text, problem = read_patch_text(real, max_bytes=10)
    assert problem is not None and problem.message == "patch is 50 bytes, over the limit of 10"
    assert read_patch_text(real, max_bytes=50) == ("x" * 50, None)

def _task_folder(root: Path, *, protected: list[str]) -> TaskFolder:
    spec = Task.model_validate(
        {
            "id": "demo",
            "title": "Demo",
            "description": "A demo task.",
            "category": "debugging",
            "difficulty": "beginner",
            "language": "Python",
            "source": {"bundle": "repo.bundle", "commit": "0" * 40},
            "tests": {"command": "pytest"},
            "features": [{"id": 1, "title": "One"}],
            "protected_paths": protected,
        }
    )
    (root / "feature1").mkdir(parents=True)
    (root / "feature1" / "tests.patch").write_text(
        "diff --git a/src/test_hidden.py b/src/test_hidden.py\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/src/test_hidden.py\n@@ -0,0 +1 @@\n+def test(): pass\n"
    )
    return TaskFolder(root=root, spec=spec)


def _touching(*paths: str) -> str:
    return "".join(f"--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-a\n+b\n" for p in paths)


def test_protected_paths_from_globs_tests_patch_and_always_protected(tmp_path: Path) -> None:
    task = _task_folder(tmp_path, protected=["tests/*", "docs/*.md"])
    patch = parse_patch(
        _touching(
            "src/app.py",  # allowed
            "tests/unit/test_a.py",  # glob (fnmatch '*' crosses '/')
            "Tests/unit/test_a.py",  # case does not dodge it
            "src/test_hidden.py",  # the tests patch creates it: pre-creating it is refused
            "pkg/deep/conftest.py",  # anywhere
            "pytest.ini",
            "lib/site.pth",
            "sitecustomize/__init__.py",  # a package Python imports at start, like the .py
            "src/sitecustomizer.py",  # allowed: another name
        )
    )
    violations = protected_paths_for(task).violations(patch)
    assert [v.path for v in violations] == [
        "tests/unit/test_a.py",
        "Tests/unit/test_a.py",
        "src/test_hidden.py",
        "pkg/deep/conftest.py",
        "pytest.ini",
        "lib/site.pth",
        "sitecustomize/__init__.py",
    ]
    assert "tests patch" in violations[2].rule


def test_renaming_a_protected_file_away_is_a_violation() -> None:
    text = (
        "diff --git a/tests/test_a.py b/src/moved.py\nsimilarity index 100%\n"
        "rename from tests/test_a.py\nrename to src/moved.py\n"
    )
    violations = ProtectedPaths(patterns=("tests/*",)).violations(parse_patch(text))
    assert [v.path for v in violations] == ["tests/test_a.py"]


def test_pyproject_is_protected_only_when_pytest_settings_change() -> None:
    head = "--- a/pyproject.toml\n+++ b/pyproject.toml\n@@ -1 +1 @@\n"
    deps = head + '-dependencies = []\n+dependencies = ["attrs"]\n'
    addopts = head + '-addopts = "-q"\n+addopts = "-q -k nothing"\n'
    section = (
        "--- a/setup.cfg\n+++ b/setup.cfg\n@@ -0,0 +1,2 @@\n"
        "+[tool:pytest]\n+python_files = none\n"
    )
    protected = ProtectedPaths()
    assert protected.violations(parse_patch(deps)) == []
    assert [v.path for v in protected.violations(parse_patch(addopts))] == ["pyproject.toml"]
    assert [v.path for v in protected.violations(parse_patch(section))] == ["setup.cfg"]


@pytest.mark.parametrize(
    ("path", "line", "refused"),
    [
        # Honest edits at the root: dependencies that happen to name pytest.
        ("pyproject.toml", '+    "pytest>=8",', False),
        ("pyproject.toml", '+pytest = "^8.0"', False),  # poetry's dev-dependencies
        ("pyproject.toml", '+dev = ["pytest-cov", "ruff"]', False),
        ("setup.cfg", "+    pytest-mock", False),
        # Settings and sections are refused wherever they are.
        ("pyproject.toml", "+[tool.pytest.ini_options]", True),
        ("pyproject.toml", '+pythonpath = ["src"]', True),
        ("pyproject.toml", '+addopts = "-p evil"', True),
        ("setup.cfg", "+[tool:pytest]", True),
        ("setup.cfg", "+python_files = *.py", True),
        # Escapes that spell pytest are an attack, whatever the line says.
        ("pyproject.toml", '+[tool."\\u0070ytest".ini_options]', True),
        ("pyproject.toml", '+x = "\\u0070ytest"', True),
        # Below the root the harness compares nothing: any mention of pytest counts.
        ("pkg/pyproject.toml", '+    "pytest>=8",', True),
    ],
)
def test_config_lines_that_change_pytest_are_refused_and_dependencies_are_not(
    path: str, line: str, refused: bool
) -> None:
    text = f"--- a/{path}\n+++ b/{path}\n@@ -1 +1,2 @@\n [project]\n{line}\n"
    violations = ProtectedPaths().violations(parse_patch(text))
    assert bool(violations) is refused, (path, line, violations)


def test_protected_paths_for_reads_every_tests_patch(tmp_path: Path) -> None:
    protected = protected_paths_for(_task_folder(tmp_path, protected=[]))
    assert protected.exact == frozenset({"src/test_hidden.py"})


diff_lines = st.one_of(
    st.sampled_from([
        "diff --git a/x b/x", "diff --git \"a/q\\303\" b/q", "--- a/x", "+++ b/x", "--- /dev/null",
        "+++ /dev/null", "@@ -1 +1 @@", "@@ -0,0 +1,3 @@", "@@ -1,2 +1 @@ def f():", "@@ bad",
        "+added", "-removed", " context", "", "\\ No newline at end of file",
        "new file mode 100644",
        "new mode 120000", "old mode 160000", "rename from a", "rename to ../b", "copy to \"x",
        "GIT binary patch", "literal 0", "index 123..456 100755", "Binary files a/x and b/x differ",
        "-- ", "similarity index 90%",
    ]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30),
)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(diff_lines, max_size=30))
def test_parser_never_raises_and_paths_are_always_safe(lines: list[str]) -> None:
    from arena_bot.intake.patches import unsafe_path_reason

    patch = parse_patch("\n".join(lines) + "\n")
    assert patch.ok or patch.problems[0].message
    for path in patch.paths:
        assert unsafe_path_reason(path) is None, path


# -- differential: whatever git would touch, the parser has seen --------------------------

NAMES = ["x", "dir/y.py", "sp ace.py", "é.py", "x y", "a b/c", "b/x", "tests/t.py", "-- "]
extended = st.sampled_from([
    "new file mode 100644", "deleted file mode 100644", "old mode 100644", "new mode 100755",
    "similarity index 90%", "rename from {o}", "rename to {n}", "copy from {o}", "copy to {n}",
    "index 1111111..2222222 100644", "new file mode 120000", "new mode 160000",
    "index 1111111..2222222 120000", "Binary files a/{o} and b/{n} differ",
])
body_line = st.sampled_from(["+x", "-x", " x", "", "\\ No newline at end of file", "+-- ", "-++"])


@st.composite
def file_sections(draw: st.DrawFn) -> str:
    old = draw(st.sampled_from(NAMES))
    new = draw(st.sampled_from([old, old, *NAMES]))
    lines = []
    if draw(st.booleans()):
        lines.append(f"diff --git a/{old} b/{new}")
        lines += [e.format(o=old, n=new) for e in draw(st.lists(extended, max_size=2))]
    if draw(st.booleans()) or not lines:
        lines.append(draw(st.sampled_from([f"--- a/{old}", "--- /dev/null"])))
        lines.append(draw(st.sampled_from([f"+++ b/{new}", "+++ /dev/null"])))
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        if draw(st.booleans()):
            # A hunk whose counts agree with its body, so git accepts more of the examples.
            body = draw(st.lists(st.sampled_from(["+x", "-x", " x"]), min_size=1, max_size=5))
            old_count = sum(1 for b in body if b[0] in "- ")
            new_count = sum(1 for b in body if b[0] in "+ ")
            lines.append(f"@@ -{min(old_count, 1)},{old_count} +1,{new_count} @@")
            lines += body
        else:
            counts = draw(st.tuples(*[st.integers(min_value=0, max_value=3)] * 4))
            lines.append("@@ -{},{} +{},{} @@".format(*counts))
            lines += draw(st.lists(body_line, max_size=6))
    return "\n".join(lines) + "\n"


@settings(max_examples=200, deadline=None)
@given(sections=st.lists(file_sections(), min_size=1, max_size=3))
def test_git_apply_touches_only_paths_the_parser_reports(
    tmp_path_factory: pytest.TempPathFactory, sections: list[str]
) -> None:
    text = "".join(sections)
    patch = parse_patch(text)
    if not patch.ok:
        return
    work = tmp_path_factory.getbasetemp()
    git = subprocess.run(
        ["git", "apply", "--numstat", "-z", "-"],
        input=text.encode(), cwd=work, capture_output=True, check=False,
    )
    if git.returncode != 0:
        return  # git refuses it too: nothing would be applied
    fields = git.stdout.decode("utf-8", errors="replace").split("\0")
    git_paths = {f.split("\t", 2)[2] for f in fields if f.count("\t") >= 2}
    git_paths |= {f for f in fields if f and "\t" not in f}  # rename pairs under -z
    assert git_paths <= set(patch.paths), (git_paths, patch.paths, text)
    assert not any(f.startswith("-\t-\t") for f in fields), ("binary accepted", text)
    summary = subprocess.run(
        ["git", "apply", "--summary", "-"],
        input=text.encode(), cwd=work, capture_output=True, check=False,
    ).stdout.decode("utf-8", errors="replace")
    assert "120000" not in summary and "160000" not in summary, (summary, text)


def _reference_rule_for(protected: ProtectedPaths, path: str) -> str | None:
    """ProtectedPaths.rule_for as first written (pathlib parts, folding on every call)."""
    import fnmatch
    from pathlib import PurePosixPath

    from arena_bot.intake.patches import (
        ALWAYS_PROTECTED_NAMES,
        ALWAYS_PROTECTED_PACKAGES,
        ALWAYS_PROTECTED_SUFFIXES,
        fold_path,
    )

    folded = fold_path(path)
    if folded in {fold_path(p) for p in protected.exact}:
        return "a file of the task's tests patch"
    for part in PurePosixPath(folded).parts:
        if (part in ALWAYS_PROTECTED_NAMES or part in ALWAYS_PROTECTED_PACKAGES
                or part.endswith(ALWAYS_PROTECTED_SUFFIXES)):
            return f"{part} (changes how tests run)"
    for pattern in protected.patterns:
        if fnmatch.fnmatchcase(folded, fold_path(pattern)):
            return f"protected path pattern {pattern!r}"
        folder = pattern.removesuffix("/**").removesuffix("/*")
        if folder != pattern and not any(c in folder for c in "*?[") and (
            folded == fold_path(folder) or folded.startswith(fold_path(folder) + "/")
        ):
            return f"protected path pattern {pattern!r}"
    return None


#: Pieces of names that pathlib splits, folds or matches in its own way: empty and "."
#: components, a root, look-alike letters (Cyrillic е, the ﬁ ligature, fullwidth letters,
#: ß, dotless ı), names protected anywhere, and very long names (not remembered).
NAME_PIECES = [
    "", ".", "..", "tests", "Tests", "t\u0435sts", "TESTS", "src", "\ufb01le.py", "ﬁle.py",
    "conftest.py", "CONFTEST.PY", "x.pth", "pkg.dist-info", "a.egg-info", "pyproject.toml",
    "setup.cfg", "stra\u00dfe", "\uff54ests", "\u0131t.py", "sitecustomize.py", "a b",
    "sitecustomize", "UserCustomize",
    "x" * 600, "data", "**", "*",
]


def test_protected_rules_equal_the_pathlib_reference() -> None:
    import random

    rng = random.Random(7)
    protected = ProtectedPaths(
        patterns=("tests/*", "data/**", "src/*.py", "T\u0435sts/fixtures/*", "docs/[ab]*"),
        exact=frozenset({"tests/test_x.py", "Src/Keep.PY", "\ufb01le.py"}),
    )
    for _ in range(3000):
        parts = [rng.choice(NAME_PIECES) for _ in range(rng.randint(1, 4))]
        path = rng.choice(["", "/", "//"]) + "/".join(parts) + rng.choice(["", "/", "/."])
        assert protected.rule_for(path) == _reference_rule_for(protected, path), repr(path)
        assert protected.rule_for(path) == protected.rule_for(path)  # remembered folds
