"""wss:// through Debian's nginx with a self-signed certificate, configured by the repository's
deploy/nginx/flowbus-websocket.conf (only its address, port and certificate changed): flowbus.js connects through
it, a step is accepted, flowbus.js is served through it too, and a token passes through it."""

import shutil
import subprocess
import urllib.request
import ssl

import pytest

from conftest import ROOT, Process, open_client, screenshot, wait_until

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def free_port():
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def nginx(tmp_path):
    def start(upstream_port):
        certificate, key = tmp_path / "kiosk.crt", tmp_path / "kiosk.key"
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
             "-keyout", key, "-out", certificate],
            check=True, capture_output=True,
        )
        port = free_port()
        server = (ROOT / "deploy" / "nginx" / "flowbus-websocket.conf").read_text()
        server = (
            server.replace("127.0.0.1:5862", f"127.0.0.1:{upstream_port}")
            .replace("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;")
            .replace("/etc/ssl/flowbus/kiosk.example.crt", str(certificate))
            .replace("/etc/ssl/flowbus/kiosk.example.key", str(key))
        )
        assert f"127.0.0.1:{port}" in server and str(certificate) in server, "the deploy file's form changed"
        (tmp_path / "flowbus-websocket.conf").write_text(server)
        temporary = tmp_path / "nginx-temp"
        temporary.mkdir()
        (tmp_path / "nginx.conf").write_text(
            f"""
            daemon off;
            worker_processes 1;
            pid {tmp_path}/nginx.pid;
            error_log {tmp_path}/nginx-error.log info;
            events {{ worker_connections 64; }}
            http {{
                access_log {tmp_path}/nginx-access.log;
                client_body_temp_path {temporary}/body;
                proxy_temp_path {temporary}/proxy;
                fastcgi_temp_path {temporary}/fastcgi;
                uwsgi_temp_path {temporary}/uwsgi;
                scgi_temp_path {temporary}/scgi;
                include {tmp_path}/flowbus-websocket.conf;
            }}
            """
        )
        process = Process([NGINX, "-p", tmp_path, "-c", tmp_path / "nginx.conf", "-e", tmp_path / "nginx-error.log"])
        process.port = port
        unverified = ssl.create_default_context()
        unverified.check_hostname = False
        unverified.verify_mode = ssl.CERT_NONE

        def serves():
            try:
                with urllib.request.urlopen(f"https://127.0.0.1:{port}/flowbus.js", context=unverified) as response:
                    return response.status == 200
            except OSError:
                return False

        wait_until(serves, 15, "nginx serving flowbus.js over https")
        started.append(process)
        return process

    started = []
    yield start
    for process in started:
        process.stop()


def test_wss_through_nginx(flowd, nginx, page, pages, tmp_path):
    token = "t" * 32
    tokens = tmp_path / "tokens"
    tokens.write_text(f"proxied/app={token}\n")
    daemon = flowd("--ephemeral", "--websocket-tokens-file", str(tokens))
    proxy = nginx(daemon.port)
    open_client(page, pages)
    result = page.evaluate(
        """async ([url, token]) => {
          const {Stepper} = window.flowbus;
          const stepper = await Stepper.connect({url, session: "proxied", name: "app", token});
          const fate = await stepper.emit("onboardingIsRequired");
          stepper.close();
          let refused;
          try { await Stepper.connect({url, session: "proxied", name: "app", token: "u".repeat(32), connectTimeout: 3000}); }
          catch (error) { refused = error.code; }
          return {fate, refused};
        }""",
        [f"wss://127.0.0.1:{proxy.port}/flowbus", token],
    )
    assert result["fate"]["accepted"] is True
    assert result["refused"] == "notAllowed", "a bad token is refused through the proxy too"
    daemon.find(r"registered name=app peer=proxied/app")
    screenshot(page, "nginx-wss")
