"""CITATION.cff, the licences and the changelog agree with the package (issue 19).

`cffconvert` would validate CITATION.cff against the official schema, but it conflicts
with the pinned jsonschema; this test checks the fields the schema requires and that
they agree with pyproject.toml and _config.yml, so a release cannot drift.
"""

from __future__ import annotations

import re
import tomllib

import pytest
import yaml

#: Keys of CFF 1.2.0, and the ones it requires.
CFF_KEYS = {
    "abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi",
    "identifiers", "keywords", "license", "license-url", "message", "preferred-citation",
    "references", "repository", "repository-artifact", "repository-code", "title", "type",
    "url", "version",
}  # fmt: skip
CFF_REQUIRED = {"authors", "cff-version", "message", "title"}


def citation_problems(cff: dict, project: dict, repository: str) -> list[str]:
    """What is wrong with a parsed CITATION.cff, given pyproject's project table."""
    problems = [f"unknown key {key!r}" for key in sorted(set(cff) - CFF_KEYS)]
    problems += [f"missing required key {key!r}" for key in sorted(CFF_REQUIRED - set(cff))]
    if cff.get("cff-version") != "1.2.0":
        problems.append("cff-version must be 1.2.0")
    if cff.get("type", "software") not in ("software", "dataset"):
        problems.append("type must be software or dataset")
    for author in cff.get("authors") or [None]:
        if not isinstance(author, dict) or not (author.get("name") or author.get("family-names")):
            problems.append(f"an author needs a name or family-names: {author!r}")
    if str(cff.get("version")) != project["version"]:
        problems.append(f"version {cff.get('version')!r} is not pyproject's {project['version']}")
    if cff.get("license") != project["license"]:
        problems.append(f"license {cff.get('license')!r} is not pyproject's {project['license']}")
    if cff.get("repository-code") != repository:
        problems.append(f"repository-code is not _config.yml's {repository}")
    if "date-released" in cff and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"])):
        problems.append("date-released must be YYYY-MM-DD")
    return problems


@pytest.fixture(scope="module")
def project(root):
    return tomllib.loads((root / "pyproject.toml").read_text())["project"]


@pytest.fixture(scope="module")
def repository(root):
    return yaml.safe_load((root / "_config.yml").read_text())["repository"]["url"]


def test_citation_file_is_valid_and_agrees_with_the_package(root, project, repository):
    cff = yaml.safe_load((root / "CITATION.cff").read_text())
    assert citation_problems(cff, project, repository) == []
    assert cff["title"] == yaml.safe_load((root / "_config.yml").read_text())["title"]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"version": "0.0.9"}, "version '0.0.9' is not pyproject's"),
        ({"license": "GPL-3.0"}, "license 'GPL-3.0' is not pyproject's"),
        ({"authors": [{"affiliation": "nowhere"}]}, "an author needs a name"),
        ({"cff-version": "1.1.0"}, "cff-version must be 1.2.0"),
        ({"titel": "typo"}, "unknown key 'titel'"),
        ({"date-released": "30 Nov 2026"}, "date-released must be YYYY-MM-DD"),
    ],
)
def test_the_check_finds_a_broken_citation(root, project, repository, change, problem):
    cff = yaml.safe_load((root / "CITATION.cff").read_text()) | change
    assert any(found.startswith(problem) for found in citation_problems(cff, project, repository))
    del cff["title"]
    assert "missing required key 'title'" in citation_problems(cff, project, repository)


def test_licences_and_changelog(root, project):
    assert project["license"] == "MIT"
    assert (root / "LICENSE").read_text().startswith("MIT License")
    text = (root / "LICENSE-TEXT.md").read_text()
    assert "CC BY 4.0" in text and "creativecommons.org/licenses/by/4.0/legalcode" in text
    changelog = (root / "CHANGELOG.md").read_text()
    assert f"## [{project['version']}]" in changelog  # the current version has an entry
    assert "How to cite" in (root / "README.md").read_text()
    intro = (root / "book" / "intro.md").read_text()
    assert "## How to cite" in intro and f"version {project['version']}," in intro
