"""flowbus.js's inspector and guard roles in a real Chromium against a real flowd: an inspector queries, watches the
inspection stream and acts in a session as a stepper; a guard's answers decide a guarded step, and a guard that
throws refuses."""

import json

from conftest import open_client


def test_an_inspector_queries_watches_and_acts(flowd, page, pages):
    daemon = flowd("--ephemeral")
    open_client(page, pages)
    result = page.evaluate(
        """async (url) => {
          const {Inspector, Stepper} = window.flowbus;
          const inspector = await Inspector.connect({url, name: "wall"});
          const batches = [];
          inspector.addEventListener("events", (event) => batches.push(event.detail));
          const subscribed = new Promise((resolve) => inspector.addEventListener("subscribed", resolve, {once: true}));
          inspector.watch("watched");
          await subscribed;
          const app = await Stepper.connect({url, session: "watched", name: "app"});
          await app.emit("onboardingIsRequired");
          const injected = await inspector.emit("dashboardIsRequired", {}, {session: "watched"});
          const tree = await inspector.query("tree", {session: "watched"});
          let unknown;
          try { await inspector.query("tree", {session: "nowhere"}); } catch (error) { unknown = error.code; }
          const deadline = Date.now() + 5000;
          const kinds = () => batches.flatMap((batch) => batch.events.map((event) => event.kind));
          while (!kinds().includes("stepFate") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          return {injected, flows: tree.flows.map((flow) => flow.name), unknown, kinds: kinds(),
                  sessions: batches.map((batch) => batch.session)};
        }""",
        daemon.url,
    )
    # The inspector emitted as the stepper named like it ("wall"), which no flow listens to: dropped, with why.
    assert result["injected"]["accepted"] is False and result["injected"]["reason"] == "unboundStepper"
    assert "AppFlow" in result["flows"] and "OnboardingFlow" in result["flows"]
    assert result["unknown"] == "unknownSession"
    assert "stepReceived" in result["kinds"] and "stepFate" in result["kinds"]
    assert set(result["sessions"]) == {"watched"}


def test_a_guards_answer_decides_a_guarded_step(flowd, page, pages):
    daemon = flowd("--ephemeral", "--guard-timeout", "10000", flows="Tests/Browser/flows/guarded.yaml")
    open_client(page, pages)
    result = page.evaluate(
        """async (url) => {
          const {Guard, Stepper} = window.flowbus;
          const asked = [];
          let allow = true;
          const parental = await Guard.connect({url, name: "parental", decide: (question) => {
            asked.push(question.subject);
            if (allow === "throw") throw new Error("the guard's own failure");
            return allow;
          }});
          const screens = [];
          for (const [session, answer] of [["s1", true], ["s2", false], ["s3", "throw"]]) {
            allow = answer;
            const app = await Stepper.connect({url, session, name: "app"});
            screens.push((await app.emit("secret")).accepted);
            app.close();
          }
          parental.close();
          return {asked, screens};
        }""",
        daemon.url,
    )
    assert result["asked"] == ["adult", "adult", "adult"]
    trees = {s: json.loads(daemon.flowctl("tree", s, "--json")) for s in ["s1", "s2", "s3"]}
    names = {s: [screen["name"] for screen in tree["screens"]] for s, tree in trees.items()}
    assert "Secret" in names["s1"]
    assert "Refused" in names["s2"] and "Secret" not in names["s2"]
    assert "Refused" in names["s3"], "a guard that throws refuses"
