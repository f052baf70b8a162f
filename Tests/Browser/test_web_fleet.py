"""`flowctl web` on a fleet: two flowd on one PostgreSQL (a real server, as in test_fleet.py), each serving a session
of its own; flowctl web, given both instances' endpoints, lists both sessions, each with the instance that serves
it, and shows the tree of a session served by either."""

import os

from conftest import BIN, Process, screenshot
from test_fleet import postgres  # noqa: F401  (a fixture: the fleet's database)
from test_web_inspector import inspector, open_session, wait_for_text  # noqa: F401  (fixtures and helpers)


def test_a_fleet_is_watched_whole_each_session_with_its_instance(flowd, postgres, inspector, page):  # noqa: F811
    fleet = {"env": {"FLOWD_STORE": postgres}, "stateless": True}
    a = flowd("--instance", "a", "--lease", "2s", **fleet)
    b = flowd("--instance", "b", "--lease", "2s", **fleet)
    for daemon, session in [(a, "one"), (b, "two")]:
        # The app stepper registers (its session is claimed by the instance it reached) and stops at once.
        app = Process(
            [BIN / "flowdemo", "app", "--control", daemon.control, "--events", daemon.events, "--session", session,
             "--returning"],
            env=dict(os.environ),
        )
        assert app.process.wait(timeout=30) == 0, "\n".join(app.output())
    web = inspector(
        None, "--control", f"{a.control},{b.control}", "--events", f"{a.events},{b.events}",
    )
    page.goto(web.url)
    wait_for_text(page, "#status", "the fleet's 2 instances")
    one = wait_for_text(page, "#sessions .session[data-session='one']", "instance a")
    two = wait_for_text(page, "#sessions .session[data-session='two']", "instance b")
    assert one and two
    open_session(page, "two")
    wait_for_text(page, "#tree", "DashboardFlow")
    screenshot(page, "web-inspector-fleet")
