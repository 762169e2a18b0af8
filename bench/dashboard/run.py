#!/usr/bin/env python3
"""The dashboard's weight and speed in headless Chromium on this machine (prints figures; asserts nothing).

    swift build --product tern && python3 bench/dashboard/run.py [--runs 15]

- Page weight: bytes of HTML, CSS and JavaScript the compose page loads (uncompressed, as served).
- Time to interactive: from navigation start to the moment the page's working form or chart is in
  the document (the compose form's title field with resources loaded; the message page's funnel),
  with the browser's cache disabled, median and worst of --runs loads each.
"""
import argparse
import os
import statistics
import sys
import tempfile
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Browser"))
os.environ.setdefault("SE_OFFLINE", "true")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from dashboard_test import browser, sign_in  # noqa: E402
from stack import Server  # noqa: E402

# Records when the page's main element first appears, in the page's own clock (ms since navigation start).
WATCH = """
window.__ready = null;
new MutationObserver((_, observer) => {
  const selector = location.hash.startsWith('#/message/') ? '#funnel-numbers' : "form[aria-label='Compose'] input[name='title']";
  const ready = location.hash.startsWith('#/compose') ? document.querySelector("select[name='resource_id'] option") : true;
  if (document.querySelector(selector) && ready) { window.__ready = performance.now(); observer.disconnect(); }
}).observe(document, {childList: true, subtree: true});
"""


def measure(driver, url, runs):
    times = []
    for _ in range(runs):
        driver.get("about:blank")
        driver.get(url)
        value = WebDriverWait(driver, 30, poll_frequency=0.05).until(lambda d: d.execute_script("return window.__ready"))
        times.append(value)
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "tern"))
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="tern-dashboard-bench-")
    server = Server(args.binary, scratch)
    driver = browser()
    try:
        status, message = server.admin("POST", "/messages", {"title": "Bench", "body": "b", "audience": {"type": "resource", "resource_id": server.bootstrap["resource_id"]}})
        assert status == 201, message
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})
        driver.get(server.root + "/")
        sign_in(driver, server.admin_key)
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "subs-title"))

        driver.get("about:blank")
        driver.get(server.root + "/#/compose")
        WebDriverWait(driver, 20).until(lambda d: d.execute_script("return window.__ready"))
        entries = driver.execute_script(
            "return [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]"
            ".map(e => [e.name, e.initiatorType, e.decodedBodySize, e.transferSize])")
        static = [e for e in entries if "/api/" not in e[0] and "/dashboard/" not in e[0]]
        weight = sum(e[2] for e in static)
        print(f"compose page weight: {weight} bytes of HTML, CSS and JavaScript in {len(static)} files (uncompressed)")
        for name, kind, size, _ in sorted(static, key=lambda e: -e[2]):
            print(f"  {size:7d}  {name.replace(server.root, '')}")

        for label, url in [("compose", server.root + "/#/compose"), ("message", f"{server.root}/#/message/{message['id']}")]:
            times = measure(driver, url, args.runs)
            print(f"{label} page time to interactive: median {statistics.median(times):.0f} ms, worst {max(times):.0f} ms "
                  f"({args.runs} cold loads, cache disabled)")
    finally:
        driver.quit()
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
