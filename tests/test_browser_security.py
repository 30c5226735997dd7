"""A shared dashboard, attacked from a real browser: it shows no visitor the host's files and keeps sessions'
uploads apart. The server allows one folder, and keeps its uploads inside it: the worst case, where a visitor
could name the folder their uploads went to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from browsing import new_page, serving, settled, shot, upload
from playwright.sync_api import Browser, Page, expect

QRELS = "q1 0 c1 2\nq2 0 c3 1\n"
RUN = "q1 Q0 c1 1 0.9 a\nq2 Q0 c3 1 0.7 a\n"
# What an attacker uploads as their "qrels": a manifest that would show the host's /etc as documents.
MANIFEST = 'name = "x"\nqrels = "qrels.trec"\ndocuments = "/etc"\n[[config]]\nname = "a"\nrun = "a.trec"\n'


@pytest.fixture(scope="module")
def allowed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("allowed")


@pytest.fixture(scope="module")
def server(allowed: Path) -> Iterator[str]:
    (allowed / "tmp").mkdir()
    with serving(allow_folders=[allowed], temporary=allowed / "tmp") as url:
        yield url


def alert(page: Page, text: str) -> None:
    expect(page.get_by_test_id("stAlert").filter(has_text=text)).to_have_count(1)
    expect(page.locator("[data-testid='stException']")).to_have_count(0)


def session_folders(allowed: Path) -> list[Path]:
    return sorted((allowed / "tmp").glob("contextgrid-uploads-*/session-*"))


def test_an_uploaded_manifest_cannot_be_opened_as_a_workspace(
    server: str, page: Page, allowed: Path, tmp_path: Path
) -> None:
    (tmp_path / "contextgrid.toml").write_text(MANIFEST)
    (tmp_path / "a.trec").write_text(RUN)
    page.goto(f"{server}/?source=upload")
    settled(page)
    upload(page, "Qrels", tmp_path / "contextgrid.toml")
    upload(page, "Runs (one configuration each)", tmp_path / "a.trec")
    # Read as the qrels they were uploaded as, never as a manifest.
    alert(page, "cannot tell the format of 'contextgrid.toml' from its suffix")
    stored = [path.parent for path in allowed.joinpath("tmp").rglob("contextgrid.toml")]
    assert len(stored) == 1
    page.goto(f"{server}/?source=folder&workspace={quote(str(stored[0]))}")
    settled(page)
    alert(page, "holds uploaded files, which are data, never a workspace")
    expect(page.get_by_text("passwd")).to_have_count(0)
    shot(page, "security-uploaded-manifest", tmp_path)


def test_a_manifest_pointing_at_etc_is_refused(server: str, page: Page, allowed: Path, tmp_path: Path) -> None:
    folder = allowed / "etc-ws"
    folder.mkdir()
    (folder / "contextgrid.toml").write_text(MANIFEST)
    (folder / "qrels.trec").write_text(QRELS)
    (folder / "a.trec").write_text(RUN)
    page.goto(f"{server}/waste?source=folder&workspace={quote(str(folder))}")
    settled(page)
    alert(page, "the documents '/etc' lies outside the workspace folder")
    expect(page.get_by_text("passwd")).to_have_count(0)
    shot(page, "security-manifest-etc", tmp_path)


def test_a_folder_outside_the_allowed_one_is_refused(server: str, page: Page) -> None:
    page.goto(f"{server}/?source=folder&workspace=/etc")
    settled(page)
    alert(page, "the workspace folder '/etc' is outside the folders this may read")
    expect(page.get_by_text("Choose a data source in the sidebar.")).to_be_visible()


def test_an_upload_whose_name_climbs_out_of_its_folder_is_refused(
    server: str, page: Page, allowed: Path, tmp_path: Path
) -> None:
    page.goto(f"{server}/?source=upload")
    settled(page)
    region = page.get_by_test_id("stSidebar").get_by_role("region", name="Qrels")
    # Chromium sends the name as given: a client may call its file anything.
    region.locator("input[type='file']").set_input_files(
        files=[{"name": "../../escaped.trec", "mimeType": "text/plain", "buffer": QRELS.encode()}]
    )
    expect(region.get_by_test_id("stFileChipName")).to_have_text("../../escaped.trec")
    settled(page)
    (tmp_path / "a.trec").write_text(RUN)
    upload(page, "Runs (one configuration each)", tmp_path / "a.trec")
    alert(page, "an uploaded file's name must be a plain file name, without folders; got '../../escaped.trec'")
    # Not written anywhere: not in the session's folder, nor the folders it would have climbed to.
    assert not list(allowed.parent.rglob("escaped.trec"))


def test_two_sessions_never_see_each_others_uploads(
    server: str, browser: Browser, allowed: Path, tmp_path: Path
) -> None:
    before = set(session_folders(allowed))
    (tmp_path / "qrels.trec").write_text(QRELS)
    (tmp_path / "alice.trec").write_text(RUN)
    (tmp_path / "bob.trec").write_text(RUN.replace("c1 1 0.9", "c9 1 0.9"))
    with new_page(browser) as alice, new_page(browser) as bob:
        alice.goto(f"{server}/?source=upload")
        settled(alice)
        upload(alice, "Qrels", tmp_path / "qrels.trec")
        upload(alice, "Runs (one configuration each)", tmp_path / "alice.trec")
        expect(alice.get_by_test_id("stDataFrame")).to_contain_text("alice")
        bob.goto(f"{server}/?source=upload")
        settled(bob)
        expect(bob.get_by_text("Upload one qrels file and at least one run.")).to_be_visible()
        expect(bob.get_by_test_id("stFileChipName")).to_have_count(0)
        upload(bob, "Qrels", tmp_path / "qrels.trec")
        upload(bob, "Runs (one configuration each)", tmp_path / "bob.trec")
        expect(bob.get_by_test_id("stDataFrame")).to_contain_text("bob")
        expect(bob.get_by_test_id("stDataFrame")).not_to_contain_text("alice")
        alice.reload()
        settled(alice)
        expect(alice.get_by_text("Upload one qrels file and at least one run.")).to_be_visible()
        shot(bob, "security-second-session", tmp_path)
    new = sorted(set(session_folders(allowed)) - before)
    assert len(new) == 2
    held = [sorted(path.name for path in folder.rglob("*.trec")) for folder in new]
    assert sorted(held) == [["alice.trec", "qrels.trec"], ["bob.trec", "qrels.trec"]]


def test_a_stopped_server_leaves_no_upload_behind(page: Page, tmp_path: Path) -> None:
    (tmp_path / "tmp").mkdir()
    (tmp_path / "qrels.trec").write_text(QRELS)
    (tmp_path / "a.trec").write_text(RUN)
    with serving(temporary=tmp_path / "tmp") as url:
        page.goto(f"{url}/?source=upload")
        settled(page)
        upload(page, "Qrels", tmp_path / "qrels.trec")
        upload(page, "Runs (one configuration each)", tmp_path / "a.trec")
        expect(page.get_by_test_id("stDataFrame")).to_contain_text("a")
        assert len(list((tmp_path / "tmp").rglob("a.trec"))) == 1
    assert list((tmp_path / "tmp").iterdir()) == []


# A configuration name that markdown would draw as an image (fetched from LEAK by every visitor's browser), LaTeX,
# bold and red text, and HTML (issue #34, item 5).
LEAK = "http://127.0.0.1:9/leak.png"
HOSTILE = f"![i]({LEAK})$x^{{2}}$**B**:red[R]<b>H</b>"
PAGES = {
    "Overview": {},
    "Questions": {},
    "Compare": {"compare_view": "A against B"},
    "Context waste": {"waste_view": "Report"},
}


def test_a_hostile_configuration_name_is_shown_as_written_on_every_page(
    server: str, page: Page, allowed: Path, tmp_path: Path
) -> None:
    import json

    import corpora

    folder = corpora.swept(allowed / "hostile-ws", sizes=[80, 200], overlap=20)
    manifest = (folder / "contextgrid.toml").read_text()
    for number, name in enumerate(("bm25-fixed_chars-80-20", "bm25-fixed_chars-200-20")):
        manifest = manifest.replace(f'name = "{name}"', f"name = {json.dumps(HOSTILE + str(number))}")
    (folder / "contextgrid.toml").write_text(manifest)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    for title, query in PAGES.items():
        page.goto(f"{server}/?{urlencode({'source': 'folder', 'workspace': str(folder), **query})}")
        settled(page)
        if title != "Overview":
            page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
            settled(page)
        expect(page.locator("[data-testid='stException']")).to_have_count(0)
        main = page.get_by_test_id("stMain")
        expect(main.locator(f"img[src='{LEAK}']")).to_have_count(0)
        expect(main.locator(".katex")).to_have_count(0)
        expect(main.locator("strong", has_text="B")).to_have_count(0)
        expect(main.locator("b", has_text="H")).to_have_count(0)
        expect(main.locator("[class*='red'], span[style*='red']", has_text="R")).to_have_count(0)
        shot(page, f"security-hostile-name-{title.lower().replace(' ', '-')}", tmp_path)
    assert [url for url in requested if url.startswith(LEAK)] == []
    # The name is on the page as written, where a page draws it in markdown (Compare's headings).
    page.goto(f"{server}/?{urlencode({'source': 'folder', 'workspace': str(folder), 'compare_view': 'A against B'})}")
    settled(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare", exact=True).click()
    settled(page)
    # A is the second configuration unless the link names one.
    expect(page.get_by_test_id("stMain").get_by_text(f"Where {HOSTILE}1 gained most")).to_have_count(1)
