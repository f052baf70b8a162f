"""flowbus.js, the JavaScript client, in a real Chromium against a real flowd: fates and drop reasons, errors with the
specification's codes, a presenter's screens and visibility, flowd killed -9 under a stepper and a presenter, tokens
and their grants, and the page's Origin."""

import json
import os
import signal
import urllib.request

from conftest import ROOT, open_client, screenshot, wait_until


def tree(daemon, session):
    return json.loads(daemon.flowctl("tree", session, "--json"))


def test_flowd_serves_the_client_of_the_repository(flowd):
    daemon = flowd("--ephemeral")
    for name in ["flowbus.js", "flowbus.d.ts"]:
        with urllib.request.urlopen(f"{daemon.http}/{name}") as response:
            assert response.read() == (ROOT / "clients" / "js" / name).read_bytes()
            assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_a_stepper_gets_fates_drop_reasons_and_errors_with_codes(flowd, page, pages):
    daemon = flowd("--ephemeral")
    open_client(page, pages)
    result = page.evaluate(
        """async (url) => {
          const {Stepper, FlowBusError} = window.flowbus;
          const stepper = await Stepper.connect({url, session: "fates", name: "app"});
          const accepted = await stepper.emit("onboardingIsRequired");
          const invalid = await stepper.emit("movieIsPicked", {withId: "not a number"});
          const none = await stepper.emit("none");
          let unknown;
          try { await stepper.emit("noSuchStep"); } catch (error) {
            unknown = {isFlowBusError: error instanceof FlowBusError, code: error.code, detail: error.detail};
          }
          const after = await stepper.emit("dashboardIsRequired");
          stepper.close();
          return {accepted, invalid, none, unknown, after};
        }""",
        daemon.url,
    )
    assert result["accepted"]["accepted"] is True and result["accepted"]["flows"] == [1]
    assert result["invalid"]["accepted"] is False
    assert result["invalid"]["reason"] == "invalidParameters"
    assert result["invalid"]["parameter"] == "withId"
    assert result["invalid"]["remedy"]
    assert result["none"]["reason"] == "noneStep"
    assert result["unknown"]["isFlowBusError"] and result["unknown"]["code"] == "unknownStep"
    assert "noSuchStep" in result["unknown"]["detail"]
    # The refused step took its number: the next one is numbered after it and accepted.
    assert result["after"]["accepted"] is True


def test_a_presenter_draws_reports_and_flowd_holds_the_same_screens(flowd, page, pages):
    daemon = flowd("--ephemeral")
    open_client(page, pages)
    result = page.evaluate(
        """async (url) => {
          const {Stepper, Presenter} = window.flowbus;
          const presenter = await Presenter.connect({url, session: "screens"});
          const updates = [];
          presenter.addEventListener("update", (event) => updates.push(event.detail.reason));
          const app = await Stepper.connect({url, session: "screens", name: "app"});
          await app.emit("onboardingIsRequired");
          const until = async (condition) => {
            const deadline = Date.now() + 5000;
            while (!condition()) {
              if (Date.now() > deadline) throw new Error("timed out: " + presenter.screens.toString());
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
          };
          await until(() => presenter.screens.topmostVisibleScreen()?.name === "OnboardingIntro");
          const intro = presenter.screens.topmostVisibleScreen();
          const fate = await presenter.emit("introIsComplete", {}, {from: intro.id});
          await until(() => presenter.screens.topmostVisibleScreen()?.name === "OnboardingApiKey");
          // What the page says the user closed must be on screen, as ids (tried: a number alone, an unknown id).
          const mistakes = [];
          for (const wrong of [5, [999]]) {
            try { presenter.dismissed(wrong); mistakes.push("taken"); } catch (error) { mistakes.push(error.code); }
          }
          return {fate, outline: presenter.screens.toString(), updates, mistakes,
                  visible: presenter.screens.visible().map((node) => node.name)};
        }""",
        daemon.url,
    )
    assert result["fate"]["accepted"] is True
    assert "OnboardingApiKey" in result["visible"]
    assert result["updates"][0] == "navigation"
    assert result["mistakes"] == ["invalidOptions", "commandDoesNotFit"]

    # flowd's tree says what the page shows: the same screens, the visible ones visible.
    def agrees():
        screens = {s["name"]: s["visibility"] for s in tree(daemon, "screens")["screens"]}
        return screens.get("OnboardingApiKey") == "visible" and screens.get("OnboardingIntro") == "hidden"

    wait_until(agrees, 5, "flowd's tree to agree with the page")


def test_flowd_killed_under_a_stepper_loses_and_doubles_nothing(flowd, page, pages):
    daemon = flowd(flows="Tests/Browser/flows/ticker.yaml", env={})
    open_client(page, pages)
    page.evaluate(
        """async (url) => {
          const {Stepper} = window.flowbus;
          window.stepper = await Stepper.connect({url, session: "ticks", name: "ticker", connectTimeout: 20000});
          window.fates = [];
          window.failures = [];
          window.sent = 0;
          window.ticking = (async () => {
            for (let n = 1; n <= 300; n += 1) {
              window.sent = n;
              window.stepper.emit("tick", {n}).then((fate) => window.fates.push([n, fate.accepted]),
                                                     (error) => window.failures.push([n, error.code]));
              if (n % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
            }
          })();
        }""",
        daemon.url,
    )
    wait_until(lambda: page.evaluate("window.fates.length") >= 60, 15, "60 fates")
    daemon.kill()
    daemon.restart()
    wait_until(lambda: page.evaluate("window.fates.length + window.failures.length") == 300, 40, "300 fates")
    assert page.evaluate("window.failures") == []
    assert all(accepted for _, accepted in page.evaluate("window.fates"))
    ticks = sorted(s["parameters"]["n"] for s in tree(daemon, "ticks")["screens"] if s["name"] == "Tick")
    assert ticks == list(range(1, 301)), "every tick applied exactly once"


def test_a_presenter_comes_back_on_the_same_screens_after_flowd_is_killed(flowd, page, pages):
    daemon = flowd()
    open_client(page, pages)
    page.evaluate(
        """async (url) => {
          const {Stepper, Presenter} = window.flowbus;
          window.presenter = await Presenter.connect({url, session: "crash", connectTimeout: 20000});
          window.rebuilds = 0;
          window.presenter.addEventListener("update", (event) => {
            if (event.detail.reason === "snapshot") window.rebuilds += 1;
          });
          const app = await Stepper.connect({url, session: "crash", name: "app"});
          await app.emit("dashboardIsRequired");
          app.close();
        }""",
        daemon.url,
    )
    wait_until(lambda: page.evaluate("window.presenter.screens.topmostVisibleScreen()?.name") == "WishlistTable", 10)
    before = page.evaluate("window.presenter.screens.toString()")
    daemon.kill()
    daemon.restart()
    wait_until(lambda: page.evaluate("window.rebuilds") >= 1, 20, "a resync after flowd's restart")
    assert page.evaluate("window.presenter.screens.toString()") == before
    wait_until(
        lambda: {s["name"]: s["visibility"] for s in tree(daemon, "crash")["screens"]}.get("WishlistTable") == "visible",
        10,
        "the screen reported visible again",
    )


def test_tokens_authenticate_and_grant_as_curve_keys_do(flowd, page, pages, tmp_path):
    presenter_token = "p" * 24
    app_token = "a" * 24
    tokens = tmp_path / "tokens"
    tokens.write_text(
        f"# id=token:sessions:roles\nkiosk-1/main={presenter_token}:kiosk-1:presenter\nkiosk-1/app={app_token}:kiosk-1:stepper\n"
    )
    tokens.chmod(0o600)
    daemon = flowd("--ephemeral", "--websocket-tokens-file", str(tokens))
    open_client(page, pages)
    result = page.evaluate(
        """async ([url, presenterToken, appToken]) => {
          const {Stepper, Presenter} = window.flowbus;
          const refused = async (options, make = Stepper) => {
            try { (await make.connect({url, connectTimeout: 3000, ...options})).close(); return "connected"; }
            catch (error) { return error.code; }
          };
          const presenter = await Presenter.connect({url, session: "kiosk-1", token: presenterToken});
          const app = await Stepper.connect({url, session: "kiosk-1", name: "app", token: appToken});
          const fate = await app.emit("onboardingIsRequired");
          return {
            fate: fate.accepted,
            noToken: await refused({session: "kiosk-1", name: "app"}),
            wrongToken: await refused({session: "kiosk-1", name: "app", token: "x".repeat(24)}),
            othersToken: await refused({session: "kiosk-1", name: "app", token: presenterToken}),
            otherSession: await refused({session: "kiosk-2", name: "app", id: "kiosk-1/app", token: appToken}),
          };
        }""",
        [daemon.url, presenter_token, app_token],
    )
    assert result["fate"] is True
    assert result["noToken"] == "notAllowed"
    assert result["wrongToken"] == "notAllowed"
    assert result["othersToken"] == "idNotAllowed"
    assert result["otherSession"] == "notAllowed"
    assert presenter_token not in "\n".join(daemon.output()), "a token never reaches the log"


def test_a_page_of_a_foreign_origin_cannot_connect(flowd, page, pages):
    daemon = flowd("--ephemeral", "--websocket-origins", "https://kiosk.example")
    open_client(page, pages)
    code = page.evaluate(
        """async (url) => {
          try { await window.flowbus.Stepper.connect({url, session: "s", connectTimeout: 1500}); return "connected"; }
          catch (error) { return error.code; }
        }""",
        daemon.url,
    )
    assert code == "unreachable"
    daemon.find(r"refused a WebSocket handshake \(403\): pages of http://127\.0\.0\.1:\d+ may not connect")
    screenshot(page, "client-foreign-origin")


def test_a_tap_made_while_flowd_is_away_goes_through_once_the_screens_are_back(flowd, page, pages):
    # flowd restarted holds the page's screens hidden until it reports them after its snapshot: the tap waits.
    daemon = flowd()
    open_client(page, pages)
    page.evaluate(
        """async (url) => {
          const {Stepper, Presenter} = window.flowbus;
          window.presenter = await Presenter.connect({url, session: "away", connectTimeout: 20000});
          const app = await Stepper.connect({url, session: "away", name: "app"});
          await app.emit("onboardingIsRequired");
          app.close();
        }""",
        daemon.url,
    )
    wait_until(lambda: page.evaluate("window.presenter.screens.topmostVisibleScreen()?.name") == "OnboardingIntro", 10)
    wait_until(
        lambda: {s["name"]: s["visibility"] for s in tree(daemon, "away")["screens"]}.get("OnboardingIntro") == "visible",
        10,
        "the screen reported visible",
    )
    daemon.kill()
    page.evaluate(
        """() => {
          const intro = window.presenter.screens.visibleScreen("OnboardingIntro");
          window.tap = window.presenter.emit("introIsComplete", {}, {from: intro.id});
        }"""
    )
    daemon.restart()
    fate = page.evaluate("window.tap")
    assert fate["accepted"] is True, fate
    wait_until(lambda: page.evaluate("window.presenter.screens.topmostVisibleScreen()?.name") == "OnboardingApiKey", 10)


def test_a_token_withdrawn_by_a_reload_closes_its_connection(flowd, page, pages, tmp_path):
    # SIGHUP reads the tokens again: a peer whose token went is unregistered and closed (4401), and cannot come back
    # with it; a peer whose token stays goes on.
    kept, withdrawn = "k" * 24, "w" * 24
    tokens = tmp_path / "tokens"
    tokens.write_text(f"s/app={kept}\ns/main={withdrawn}\n")
    daemon = flowd("--ephemeral", "--websocket-tokens-file", str(tokens))
    open_client(page, pages)
    page.evaluate(
        """async ([url, kept, withdrawn]) => {
          const {Stepper, Presenter} = window.flowbus;
          window.failure = null;
          window.app = await Stepper.connect({url, session: "s", name: "app", token: kept});
          window.presenter = await Presenter.connect({url, session: "s", token: withdrawn});
          window.presenter.addEventListener("failed", (event) => { window.failure = event.detail.code; });
        }""",
        [daemon.url, kept, withdrawn],
    )
    tokens.write_text(f"s/app={kept}\n")
    daemon.signal(signal.SIGHUP)
    wait_until(lambda: page.evaluate("window.failure") == "notAllowed", 10, "the withdrawn token's connection closed")
    result = page.evaluate(
        """async ([url, withdrawn]) => {
          const {Presenter} = window.flowbus;
          let again;
          try { await Presenter.connect({url, session: "s", token: withdrawn, connectTimeout: 3000}); again = "connected"; }
          catch (error) { again = error.code; }
          const fate = await window.app.emit("onboardingIsRequired");
          return {again, fate: fate.accepted};
        }""",
        [daemon.url, withdrawn],
    )
    assert result == {"again": "notAllowed", "fate": True}
