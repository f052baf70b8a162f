"""The movie app as a web page (`flowdemo web`), in a real Chromium: the first screens drawn, taps that navigate, a
modal that covers and uncovers, a reload that rebuilds the same screens, flowd killed -9 and started again under the
page, which resyncs, and a dropped step's reason on the page. A screenshot of each stage is kept (the artifacts)."""

import os
import signal
import subprocess

import pytest

from conftest import BIN, Process, screenshot, wait_until


@pytest.fixture
def demo(tmp_path):
    runtime = tmp_path / "runtime"
    process = Process(
        [BIN / "flowdemo", "web", "--page", "127.0.0.1:0", "--websocket", "127.0.0.1:0",
         "--runtime-directory", runtime, "--session", "web"]
    )
    match = process.find(r"open (http://127\.0\.0\.1:\d+/)", within=30)
    process.url = match.group(1)
    process.runtime = runtime
    yield process
    process.signal(signal.SIGINT)
    try:
        process.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.process.pid, signal.SIGKILL)
        process.process.wait()
    # The demo stopped every process it started (flowd too, though it restarts a flowd that dies): none is left.
    leftover = subprocess.run(["pgrep", "-f", str(runtime)], capture_output=True, text=True).stdout.split()
    for pid in leftover:
        os.kill(int(pid), signal.SIGKILL)
    assert leftover == [], "processes the demo left behind"


def visible_screen(page):
    """The names of the screens the page draws as visible, innermost last."""
    return page.eval_on_selector_all(
        "section.screen.visible", "nodes => nodes.map(node => node.dataset.name)"
    )


def wait_for_screen(page, name, within=15):
    wait_until(lambda: name in visible_screen(page), within, f"{name} on the page ({visible_screen(page)})")


def tap(page, screen, label):
    page.locator(f"section.screen.visible[data-name='{screen}'] button", has_text=label).first.click()


def flowd_pid(demo):
    found = subprocess.run(["pgrep", "-f", f"{demo.runtime}/control"], capture_output=True, text=True)
    pids = [int(p) for p in found.stdout.split()]
    flowd = [p for p in pids if open(f"/proc/{p}/comm").read().strip() == "flowd"]
    return flowd[0] if flowd else None


def test_the_movie_app_in_a_browser(demo, page):
    page.goto(demo.url)
    wait_for_screen(page, "OnboardingIntro")
    assert page.locator("#state").get_attribute("data-state") == "registered"
    screenshot(page, "demo-1-onboarding")

    # The onboarding is a modal flow over the app's stack.
    assert page.locator("section[data-name='onboarding'][data-placement='modal']").count() == 1
    tap(page, "OnboardingIntro", "continue")
    wait_for_screen(page, "OnboardingApiKey")
    tap(page, "OnboardingApiKey", "save the API key")
    wait_for_screen(page, "WishlistTable")
    assert page.locator("section[data-placement='modal']").count() == 0, "the modal is gone, uncovering the tabs"
    screenshot(page, "demo-2-dashboard")

    tap(page, "WishlistTable", "Up")
    wait_for_screen(page, "MovieDetail")
    tap(page, "MovieDetail", "cast")
    wait_for_screen(page, "CastDetail")
    screenshot(page, "demo-3-cast")
    page.locator("button.back").last.click()
    wait_for_screen(page, "MovieDetail")
    page.locator("[role=tab]", has_text="Watched").click()
    wait_for_screen(page, "WatchedCollection")
    page.locator("[role=tab]", has_text="Wishlist").click()
    wait_for_screen(page, "MovieDetail")
    page.locator("button.back").last.click()
    wait_for_screen(page, "WishlistTable")

    # Settings: a modal split; About is refused (an alert) until a login, then shown.
    tap(page, "WishlistTable", "settings")
    wait_for_screen(page, "SettingsList")
    assert page.locator("section.covered[data-name='WishlistTable']").count() == 1, "the modal covers the list"
    tap(page, "SettingsList", "about")
    wait_for_screen(page, "Alert")
    screenshot(page, "demo-4-unauthorized")
    tap(page, "Alert", "OK")
    wait_until(lambda: "Alert" not in visible_screen(page), 10, "the alert dismissed")
    tap(page, "SettingsList", "login")
    wait_for_screen(page, "SettingsLogin")
    tap(page, "SettingsLogin", "log in as demo")
    wait_until(lambda: "logged in" in page.locator("#status").inner_text(), 10, "the login")
    tap(page, "SettingsList", "about")
    wait_for_screen(page, "About")
    screenshot(page, "demo-5-about")
    tap(page, "SettingsList", "done")
    wait_until(lambda: visible_screen(page) == ["WishlistTable"], 10, "the settings closed")
    assert page.locator("section.covered").count() == 0

    # A reload comes back on the same screens.
    tap(page, "WishlistTable", "Interstellar")
    wait_for_screen(page, "MovieDetail")
    drawn = page.locator("#window").inner_html()
    page.reload()
    wait_for_screen(page, "MovieDetail")
    assert page.locator("#window").inner_html() == drawn
    screenshot(page, "demo-6-reloaded")

    # flowd killed -9 under the page: the demo starts it again on its state, and the page resyncs.
    pid = flowd_pid(demo)
    assert pid
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: flowd_pid(demo) not in (None, pid), 15, "flowd started again")
    wait_until(lambda: page.locator("#state").get_attribute("data-state") == "registered", 20, "the page registered again")
    wait_for_screen(page, "MovieDetail")
    page.locator("button.back").last.click()
    wait_for_screen(page, "WishlistTable")
    screenshot(page, "demo-7-after-flowd-restart")

    # A step from a screen that another tap has just covered is dropped, and the page says why.
    page.evaluate(
        """() => {
          const buttons = [...document.querySelectorAll("section.screen.visible[data-name='WishlistTable'] button")];
          const up = buttons.find((button) => button.textContent === "Up");
          up.click();
          up.click();
        }"""
    )
    wait_until(lambda: page.locator("#drops li").count() >= 1, 10, "a drop shown")
    drop = page.locator("#drops li").first
    assert drop.get_attribute("data-reason") == "notVisible"
    assert "WishlistTable" in drop.inner_text()
    screenshot(page, "demo-8-drop")


def test_a_tab_closed_and_opened_again_comes_back_on_the_same_screens(demo, browser):
    first = browser.new_context().new_page()
    first.goto(demo.url)
    wait_for_screen(first, "OnboardingIntro")
    tap(first, "OnboardingIntro", "continue")
    wait_for_screen(first, "OnboardingApiKey")
    drawn = first.locator("#window").inner_html()
    first.context.close()
    second = browser.new_context().new_page()
    second.goto(demo.url)
    wait_for_screen(second, "OnboardingApiKey")
    assert second.locator("#window").inner_html() == drawn
    second.context.close()
