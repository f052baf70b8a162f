"""`flowctl web`, the live inspector, in a real Chromium against real processes: a flowd, the getting-started app
stepper and presenter (Swift processes), flowctl emitting and recording. The sessions list, a step and its fate, a
drop with its reason and remedy, a navigation drawn in the tree and the screens, an event's tree before and after,
a recording opened and scrubbed, and what the page says for a bad URL, a flowd that goes away and comes back, and a
session that ends. A screenshot of each is kept (the artifacts)."""

import json
import os
import signal
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import BIN, ROOT, Process, screenshot, wait_until


class Inspector(Process):
    """`flowctl web` on a free port, watching `daemon` (or offline, with `--flows`)."""

    def __init__(self, daemon=None, *extra):
        bus = ["--control", daemon.control, "--events", daemon.events] if daemon else []
        super().__init__([BIN / "flowctl", "web", "--port", "0", *bus, *extra])
        self.url = self.find(r"flowctl web: (http://127\.0\.0\.1:\d+/\S*)", within=30).group(1)

    def stop(self):
        # Ctrl-C stops it cleanly, with exit status 0.
        self.signal(signal.SIGINT)
        try:
            assert self.process.wait(timeout=15) == 0, "\n".join(self.output())
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise AssertionError("flowctl web did not stop on Ctrl-C")


@pytest.fixture
def inspector():
    """An inspector factory: `inspector(flowd, *extra)`; every one started is stopped."""
    started = []

    def make(daemon=None, *extra):
        web = Inspector(daemon, *extra)
        started.append(web)
        return web

    yield make
    for web in started:
        web.stop()


STARTED = []


@pytest.fixture(autouse=True)
def stop_clients():
    """Every client program a test started is stopped at its end (a presenter runs until it is stopped)."""
    yield
    while STARTED:
        STARTED.pop().stop()


def client(daemon, program, *arguments, env=None):
    """One of the getting-started programs against `daemon`; stopped at the end of the test."""
    environment = dict(os.environ, FLOWBUS_CONTROL=daemon.control, FLOWBUS_EVENTS=daemon.events, **(env or {}))
    started = Process([BIN / program, *arguments], env=environment)
    STARTED.append(started)
    return started


def texts(page, selector):
    return page.eval_on_selector_all(selector, "nodes => nodes.map(node => node.textContent)")


def wait_for_text(page, selector, text, within=15):
    """Waits until an element matching `selector` holds `text`; returns the matching texts."""
    return wait_until(
        lambda: [t for t in texts(page, selector) if text in t],
        within,
        f"'{text}' in {selector} (it holds {texts(page, selector)[-5:]})",
    )


def open_session(page, session):
    page.locator(f".session[data-session='{session}']").first.click()


def start_app(flowd, inspector, page, follow=False):
    """flowd, flowctl web, the page, a presenter and the app stepper: session kiosk-7 on its dashboard. `follow`: the
    page looks at kiosk-7 from the start (its trees are followed from its first event)."""
    daemon = flowd()
    web = inspector(daemon)
    page.goto(web.url + ("?session=kiosk-7" if follow else ""))
    wait_for_text(page, "#status", "watching")
    presenter = client(daemon, "example-presenter")
    stepper = client(daemon, "example-app-stepper")
    stepper.find(r"accepted by|dropped")
    return daemon, web, presenter


def test_the_sessions_list_shows_a_session_a_stepper_process_created(flowd, inspector, page):
    daemon = flowd()
    web = inspector(daemon)
    page.goto(web.url)
    wait_for_text(page, "#status", "watching")
    assert wait_for_text(page, "#history-note", "5000")
    stepper = client(daemon, "example-app-stepper")
    stepper.find(r"accepted by|dropped")
    wait_for_text(page, "#sessions .session", "kiosk-7")
    # Its peers: the stepper said BYE, the inspector's own connections are not the session's.
    page.fill("#session-filter", "nothing-like-it")
    wait_until(lambda: not [t for t in texts(page, "#sessions .session") if "kiosk-7" in t and page.is_visible(
        ".session[data-session='kiosk-7']")], 5, "the filter to hide kiosk-7")
    page.fill("#session-filter", "kiosk")
    wait_until(lambda: page.is_visible(".session[data-session='kiosk-7']"), 5, "kiosk-7 shown again")
    screenshot(page, "web-inspector-sessions")
    # A press held across the list's redraw (it is drawn again every second) still selects, and the address
    # follows the session selected.
    page.locator(".session[data-session='kiosk-7']").click(delay=1300)
    wait_for_text(page, "#session-title", "Session kiosk-7", within=5)
    assert "session=kiosk-7" in page.url, page.url


def test_a_step_and_its_fate_and_a_drop_with_its_reason_and_remedy(flowd, inspector, page):
    daemon, web, presenter = start_app(flowd, inspector, page)
    open_session(page, "kiosk-7")
    accepted = wait_for_text(page, "#timeline .event[data-kind='stepFate']", "dashboardIsRequired")
    assert any("accepted" in t for t in accepted), accepted
    # The presenter tapped a movie: the wishlist is covered, so a tap on it now is dropped, and the page says why and
    # what would have made it pass, as text.
    presenter.find(r"tap: ")
    dropped = daemon.flowctl(
        "emit", "movieIsPicked", "--param", "withId=8", "--from", "WishlistTable", "--session", "kiosk-7", "--json"
    )
    fate = json.loads(dropped)
    assert fate["accepted"] is False, dropped
    rows = wait_for_text(page, "#timeline .event[data-kind='stepFate']", "withId: 8")
    assert any(f"dropped ({fate['reason']})" in t for t in rows), rows
    page.locator("#timeline .event[data-kind='stepFate']", has_text="withId: 8").last.click()
    detail = wait_until(lambda: page.text_content("#event-detail"), 5, "the event's detail")
    assert f"dropped ({fate['reason']})" in detail
    assert fate["remedy"] in detail and fate["explanation"] in detail
    # Paused, a new event is kept and counted, not drawn; resumed, it is drawn.
    page.click("#pause")
    daemon.flowctl("emit", "castIsPicked", "--param", "withId=77", "--from", "WishlistTable", "--session", "kiosk-7")
    wait_for_text(page, "#waiting", "new event")
    assert not [t for t in texts(page, "#timeline .event") if "withId: 77" in t]
    page.click("#pause")
    wait_for_text(page, "#timeline .event[data-kind='stepFate']", "withId: 77")
    # The fate filter keeps only the drops.
    page.select_option("#filter-fate", "dropped")
    wait_until(
        lambda: texts(page, "#timeline .event[data-kind='stepFate']")
        and all("dropped" in t for t in texts(page, "#timeline .event[data-kind='stepFate']")),
        5,
        "only dropped steps shown",
    )
    screenshot(page, "web-inspector-drop")


def test_a_navigation_updates_the_tree_and_the_screens(flowd, inspector, page):
    daemon, web, presenter = start_app(flowd, inspector, page)
    open_session(page, "kiosk-7")
    wait_for_text(page, "#tree", "DashboardFlow")
    wait_for_text(page, "#screens", "WishlistTable")
    # The presenter taps a movie on the wishlist: a new screen is pushed.
    presenter.find(r"tap: ")
    wait_for_text(page, "#screens", "MovieDetail")
    visible = page.eval_on_selector_all(
        "#screens .screen[data-visibility='visible']", "nodes => nodes.map(node => node.textContent)"
    )
    assert any("MovieDetail" in t for t in visible), visible
    # The session's peers with their liveness: the presenter is connected.
    wait_for_text(page, "#sessions .session[data-session='kiosk-7'] .peer", "presenter main")
    hidden = page.eval_on_selector_all(
        "#screens .screen[data-visibility='hidden']", "nodes => nodes.map(node => node.textContent)"
    )
    assert any("WishlistTable" in t for t in hidden), "the table covered by the movie: hidden, its own look"
    # The flow file: the flows running marked, and the handler of the last navigation.
    running = page.eval_on_selector_all("#diagram .diagram-flow.running", "nodes => nodes.map(n => n.dataset.flow)")
    assert {"AppFlow", "DashboardFlow", "WishlistFlow"} <= set(running), running
    wait_until(
        lambda: page.eval_on_selector_all(
            "#diagram .diagram-flow[data-flow='WishlistFlow'] .handler.current", "nodes => nodes.map(n => n.dataset.step)"
        ) == ["movieIsPicked"],
        10,
        "the movieIsPicked handler marked as the current position",
    )
    screenshot(page, "web-inspector-navigation")


def test_selecting_an_event_shows_the_tree_before_and_after_it(flowd, inspector, page):
    daemon, web, presenter = start_app(flowd, inspector, page, follow=True)
    presenter.find(r"tap: ")
    wait_for_text(page, "#screens", "MovieDetail")
    # A navigation once the page follows the session's tree: the cast of the movie shown.
    fate = daemon.flowctl(
        "emit", "castIsPicked", "--param", "withId=3", "--from", "MovieDetail", "--session", "kiosk-7", "--json"
    )
    assert json.loads(fate)["accepted"] is True, fate
    wait_for_text(page, "#screens", "CastDetail")
    page.locator("#timeline .event[data-kind='stepFate']", has_text="castIsPicked").last.click()
    before = wait_until(lambda: page.text_content("#tree-before"), 5, "the tree before")
    after = wait_until(
        lambda: "CastDetail" in (page.text_content("#tree-after") or "") and page.text_content("#tree-after"),
        10,
        "the tree after",
    )
    assert "MovieDetail" in before and "CastDetail" not in before, before
    assert "CastDetail" in after
    added = page.eval_on_selector_all("#tree-after .added", "nodes => nodes.map(n => n.textContent)")
    assert any("CastDetail" in t for t in added), added
    screenshot(page, "web-inspector-before-after")


def test_each_event_of_a_quick_run_of_steps_has_its_own_trees(flowd, inspector, page):
    """Steps that come faster than flowctl reads flowd's tree (one batch of events, one tree read after it): each
    event still has the trees just before and just after its own step, from flowctl's mirror of the session it saw
    start; the page says they are exact. The page did not follow the session (nothing selected) while they came."""
    daemon, web, presenter = start_app(flowd, inspector, page)
    wait_for_text(page, "#sessions .session[data-session='kiosk-7'] .peer", "presenter main")
    # The app's stack is on screen: each of its stepper's steps pushes one more dashboard.
    fates = daemon.flowctl(
        "emit", "dashboardIsRequired", "--as", "app", "--repeat", "3", "--session", "kiosk-7", "--json"
    )
    accepted = [json.loads(line)["accepted"] for line in fates.splitlines() if line.startswith("{")]
    assert accepted == [True, True, True], fates
    # The fates of the app's steps (the flows' own first steps, the coordinator's, are left out).
    page.fill("#filter-stepper", "app")
    page.select_option("#filter-fate", "steps")
    steps = page.locator("#timeline .event[data-kind='stepFate']", has_text="dashboardIsRequired")
    wait_until(lambda: steps.count() >= 4, 10, "the app's first step and the three in the timeline")
    first = steps.count() - 3
    for index in range(1, 4):
        steps.nth(first + index - 1).click()
        wait_for_text(page, "#tree-after .note", "exact")
        before = page.text_content("#tree-before")
        after = page.text_content("#tree-after")
        assert before.count("DashboardFlow") == index and after.count("DashboardFlow") == index + 1, (
            index, before, after,
        )
    screenshot(page, "web-inspector-exact-trees")
    # The presenter goes away: its screens become hidden, and that event too has its exact trees.
    page.fill("#filter-stepper", "")
    page.select_option("#filter-fate", "all")
    presenter.stop()
    hidden = page.locator("#timeline .event[data-kind='visibilityChanged']", has_text="hidden")
    wait_for_text(page, "#timeline .event[data-kind='unregistered']", "presenter main")
    wait_until(lambda: hidden.count() > 0, 10, "a screen hidden once its presenter left")
    hidden.last.click()
    wait_for_text(page, "#tree-after .note", "exact")
    before, after = page.text_content("#tree-before"), page.text_content("#tree-after")
    assert before.count("visible") > after.count("visible"), (before, after)
    # A session that started before flowctl web watched it has no mirror: the page says why, and shows the trees it read.
    later = inspector(daemon)
    page.goto(later.url + "?session=kiosk-7")
    wait_for_text(page, "#status", "watching")
    daemon.flowctl("emit", "dashboardIsRequired", "--as", "app", "--session", "kiosk-7")
    page.locator("#timeline .event[data-kind='stepFate']", has_text="dashboardIsRequired").last.click()
    wait_for_text(page, "#tree-after .note", "only the sessions it saw start")


def test_a_recording_opens_and_scrubs_without_flowd(flowd, inspector, page, tmp_path):
    daemon = flowd()
    recording = tmp_path / "kiosk.flowrec"
    recorder = Process(
        [BIN / "flowctl", "record", recording, "--session", "kiosk-7", "--wait",
         "--control", daemon.control, "--events", daemon.events]
    )
    STARTED.append(recorder)
    recorder.find(r"recording", within=15)
    presenter = client(daemon, "example-presenter")
    stepper = client(daemon, "example-app-stepper")
    stepper.find(r"accepted by|dropped")
    presenter.find(r"tap: ")
    wait_until(lambda: recording.exists() and len(recording.read_text().splitlines()) >= 4, 10, "the recording")
    # A second recording, started while the session runs: flowctl record says it starts in the middle.
    middle = tmp_path / "middle.flowrec"
    late = Process(
        [BIN / "flowctl", "record", middle, "--session", "kiosk-7", "--control", daemon.control,
         "--events", daemon.events]
    )
    STARTED.append(late)
    late.find(r"already running: the recording starts in the middle", within=15)
    daemon.flowctl("emit", "castIsPicked", "--param", "withId=3", "--from", "MovieDetail", "--session", "kiosk-7")
    wait_until(lambda: middle.exists() and len(middle.read_text().splitlines()) >= 2, 10, "the second recording")
    late.signal(signal.SIGINT)
    late.process.wait(timeout=10)
    recorder.signal(signal.SIGINT)
    recorder.process.wait(timeout=10)
    presenter.stop()
    daemon.stop()
    # No flowd now: the page replays the file with the flow file.
    web = inspector(None, "--offline", "--flows", ROOT / "deploy/flows/movies.yaml")
    page.goto(web.url)
    wait_for_text(page, "#status", "offline")
    page.set_input_files("#recording-file", str(recording))
    wait_until(lambda: page.is_visible("#scrubber"), 15, "the scrubber")
    last = int(page.get_attribute("#scrubber", "max"))
    assert page.is_visible("#recording-position")
    assert last >= 3
    page.fill("#scrubber", str(last))
    page.dispatch_event("#scrubber", "input")
    wait_for_text(page, "#screens", "MovieDetail")
    page.fill("#scrubber", "0")
    page.dispatch_event("#scrubber", "input")
    wait_until(lambda: "MovieDetail" not in (page.text_content("#screens") or ""), 5, "the first frame's screens")
    assert "1 /" in page.text_content("#recording-position")
    screenshot(page, "web-inspector-recording")
    # Played at the pace it was recorded, from the first input to the last; the screens follow.
    page.click("#recording-play")
    wait_until(lambda: int(page.input_value("#scrubber")) == last, 30, "the recording played to its end")
    wait_for_text(page, "#screens", "MovieDetail")
    assert "play" in page.text_content("#recording-play"), "stopped at the end"
    # A screen's step is told by the screen's name, not only its number.
    positions = []
    for index in range(last + 1):
        page.fill("#scrubber", str(index))
        page.dispatch_event("#scrubber", "input")
        positions.append(page.text_content("#recording-position"))
    assert any("from screen p5 WishlistTable" in text for text in positions), positions
    # The recording started in the middle: its replay starts the session anew, and the page says they differ.
    page.set_input_files("#recording-file", str(middle))
    wait_for_text(page, "#recording-name", "the replay differs from the recording")
    # A recording whose last line was cut short (the recorder killed while writing it) opens, and says so.
    cut = tmp_path / "cut.flowrec"
    text = recording.read_text()
    cut.write_text(text + text.splitlines()[-1][:25])
    page.set_input_files("#recording-file", str(cut))
    wait_for_text(page, "#recording-name", f"line {len(text.splitlines()) + 1} was cut short")
    assert int(page.get_attribute("#scrubber", "max")) == last
    # A file that is not a recording is refused, with the line at fault.
    bad = tmp_path / "bad.flowrec"
    bad.write_text("this is not json\n")
    page.set_input_files("#recording-file", str(bad))
    wait_for_text(page, "#errors", "not a FlowBus recording")


def test_a_bad_url_a_flowd_that_goes_and_comes_back_and_a_session_that_ends(flowd, inspector, page):
    daemon, web, presenter = start_app(flowd, inspector, page)
    # A path the server does not serve: a 404 that says where the inspector is.
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(web.url.split("?")[0] + "no-such-page", timeout=5)
    assert refused.value.code == 404
    assert "the inspector is at /" in refused.value.read().decode()
    # A session flowd does not have, named in the URL.
    page.goto(web.url.split("?")[0] + "?session=nobody-here")
    wait_for_text(page, "body", 'no session "nobody-here"')
    open_session(page, "kiosk-7")
    # flowd killed: the page says so; started again: it watches again.
    daemon.kill()
    wait_until(lambda: "waiting for it" in (page.text_content("#status") or ""), 15, "flowd gone on the page")
    screenshot(page, "web-inspector-flowd-gone")
    daemon.restart()
    wait_for_text(page, "#status", "watching", within=20)
    # The session ends (its presenter gone first: it would create it again): the page says so, and keeps its last
    # tree.
    presenter.stop()
    ended = daemon.flowctl("end", "kiosk-7")
    assert "ended" in ended or ended.strip() == "", ended
    wait_for_text(page, "#session-state", "kiosk-7 ended")
    assert "MovieDetail" in page.text_content("#screens")
    screenshot(page, "web-inspector-session-ended")


def test_the_feed_answers_bad_input_with_an_error_and_keeps_going(flowd, inspector, tmp_path):
    """Bad input tried on the feed: text that is not JSON, JSON without a type, an unknown type, openRecording
    without its text, a recording that is not one, and a binary frame (closed with 1003, as the feed is text)."""
    from rawsocket import RawWebSocket

    daemon = flowd()
    web = inspector(daemon)
    port = int(web.url.split(":")[2].split("/")[0])
    feed = RawWebSocket(port, path="/feed", protocols=())
    assert feed.status == 101

    def next_of(kind):
        while True:
            text = feed.message(within=10)
            assert text is not None, "the feed closed"
            message = json.loads(text)
            if message["type"] == kind:
                return message

    assert next_of("hello")["version"] == 1
    for bad, said in [
        ("not json", "JSON objects with a type"),
        ("[1, 2]", "JSON objects with a type"),
        ('{"type": "explode"}', "does not know 'explode'"),
        ('{"type": "openRecording", "name": "x"}', "carries the file's text"),
        ('{"type": "openRecording", "name": "x.flowrec", "text": "hello\\n"}', "not a FlowBus recording"),
    ]:
        feed.send(bad)
        assert said in next_of("error")["message"], bad
    # Still serving: a select is taken, and the sessions keep coming.
    feed.send('{"type": "select", "session": "kiosk-7"}')
    assert next_of("sessions")["type"] == "sessions"
    feed.frame(b"\x00\x01", opcode=0x2)
    code, _ = feed.closed_with(within=10)
    assert code == 1003
    feed.close()
    # A plain GET on the feed's path says what it is; a POST is refused.
    with pytest.raises(urllib.error.HTTPError) as plain:
        urllib.request.urlopen(web.url + "feed", timeout=5)
    assert plain.value.code == 426
    with pytest.raises(urllib.error.HTTPError) as posted:
        urllib.request.urlopen(urllib.request.Request(web.url, data=b"x", method="POST"), timeout=5)
    assert posted.value.code == 405


def keys():
    """A CURVE key pair from `flowd keygen`: (public, secret)."""
    said = subprocess.run([BIN / "flowd", "keygen"], capture_output=True, text=True, check=True).stdout
    found = dict(line.split(": ", 1) for line in said.strip().splitlines())
    return found["public"], found["secret"]


def test_a_curve_flowd_is_watched_with_flowctls_keys(flowd, inspector, page):
    server_public, server_secret = keys()
    ops_public, ops_secret = keys()
    app_public, app_secret = keys()
    daemon = flowd(
        f"--curve-secret-key={server_secret}", f"--authorize=ops={ops_public}",
        f"--authorize=kiosk-7/app={app_public}", websocket=None,
    )
    # `--option=value`: a Z85 key may start with `-`.
    web = inspector(daemon, f"--curve-secret-key={ops_secret}", f"--curve-server-key={server_public}", "--id", "ops")
    page.goto(web.url)
    wait_for_text(page, "#status", "watching")
    stepper = client(
        daemon, "example-app-stepper",
        env={"FLOWBUS_CURVE_SECRET_KEY": app_secret, "FLOWBUS_CURVE_SERVER_KEY": server_public},
    )
    stepper.find(r"accepted by|dropped")
    wait_for_text(page, "#sessions .session", "kiosk-7")
    open_session(page, "kiosk-7")
    wait_for_text(page, "#timeline .event[data-kind='stepFate']", "dashboardIsRequired")
    wait_for_text(page, "#tree", "DashboardFlow")



def test_it_keeps_up_with_a_thousand_steps_a_second_within_its_bounds(flowd, inspector, page):
    """3 000 steps at 1 000 a second, with a history of 2 000 events: the page keeps exactly its bound, draws at most
    500 lines, and shows the step sent after the burst (it did not fall behind)."""
    daemon = flowd()
    web = inspector(daemon, "--history", "2000")
    page.goto(web.url + "?session=kiosk-7")
    wait_for_text(page, "#status", "watching")
    presenter = client(daemon, "example-presenter")
    client(daemon, "example-app-stepper").find(r"accepted by|dropped")
    presenter.find(r"tap: ")
    burst = daemon.flowctl(
        "emit", "castIsPicked", "--param", "withId=1", "--from", "WishlistTable", "--session", "kiosk-7",
        "--repeat", "3000", "--rate", "1000",
    )
    assert "3000" in burst, burst
    daemon.flowctl("emit", "castIsPicked", "--param", "withId=424242", "--from", "WishlistTable", "--session", "kiosk-7")
    wait_for_text(page, "#timeline .event[data-kind='stepFate']", "withId: 424242", within=20)
    assert "(it holds 2000)" in page.text_content("#history-note")
    assert page.eval_on_selector("#timeline", "list => list.childElementCount") <= 500
    assert "left out" not in page.text_content("body")
    screenshot(page, "web-inspector-burst")
    # A page opened after the burst gets the last events flowctl kept (its history, in whole batches), no more
    # than it keeps itself.
    later = page.context.new_page()
    later.goto(web.url)
    wait_for_text(later, "#timeline .event[data-kind='stepFate']", "withId: 424242", within=20)
    assert "(it holds 2000)" in later.text_content("#history-note")
    later.close()


def test_the_pages_own_bounds_hold(flowd, inspector, page):
    """The page's history module on its own, in the browser: events beyond the history let go, the events that
    wait while paused bounded by it too, and at most 1 000 trees a session."""
    daemon = flowd()
    web = inspector(daemon)
    page.goto(web.url)
    held = page.evaluate(
        """async () => {
          const { History } = await import("/modules/history.js");
          const history = new History(100);
          const events = (from, count) => Array.from({ length: count }, (_, i) => ({ seq: from + i, kind: "x" }));
          history.add(events(1, 150));
          history.pause();
          history.add(events(151, 130));
          const waiting = history.waiting.length;
          const shown = history.resume().length;
          for (let seq = 1; seq <= 1500; seq += 1) history.addTree("s", seq, { flows: [], screens: [] });
          return { kept: history.events.length, first: history.events[0].seq, waiting, shown,
                   trees: history.trees.get("s").length, oldestTree: history.trees.get("s")[0].seq };
        }"""
    )
    assert held == {"kept": 100, "first": 181, "waiting": 100, "shown": 100, "trees": 1000, "oldestTree": 501}
