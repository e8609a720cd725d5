"""scrapli against the lab's fleet, the commands `premarket plan` prints (tests/bench/fleet.sh).

Reads `premarket --dir SITE plan` for each device's commands (context lines included, the
session-setup lines and comments left out: scrapli does its own setup), the site's baselines for
addresses and secrets, then drives every device at once with scrapli's asyncio drivers over
asyncssh: AsyncEOSDriver (enable with the secret) for switches, AsyncGenericDriver for
FortiGates. scrapli has no way to answer FortiOS's `--More--` pager from a read-only session, so
it first sets `config system console / set output standard` (what scrapli users do; premarket
never writes configuration). Prints devices, commands, bytes and wall time as one JSON line.
"""
import asyncio, json, re, subprocess, sys, time
from pathlib import Path

from scrapli.driver.core import AsyncEOSDriver
from scrapli.driver.generic import AsyncGenericDriver

SETUP = ("terminal ", "enable", "<enable secret", "(")


def plan(premarket, site):
    out = subprocess.run([premarket, "--dir", site, "plan"], check=True,
                         capture_output=True, text=True).stdout
    devices, current = {}, None
    for line in out.splitlines():
        head = re.match(r"^(\S+) \((eos|fortigate), ", line)
        if head:
            current = devices.setdefault(head.group(1), {"platform": head.group(2), "commands": []})
            continue
        if current is None or not line.startswith("  "):
            current = None if not line.startswith("  ") else current
            continue
        command = re.split(r"\s{2,}#|\s#\s", line.strip())[0].strip()
        if command and not command.startswith(SETUP):
            current["commands"].append(command)
    return devices


def secret(ref):
    ref = ref.strip()
    m = re.search(r'file:\s*"?([^"}]+)"?', ref)
    return Path(m.group(1).strip()).read_text().strip()


def access(site, name):
    text = (Path(site) / "baselines" / f"{name}.yaml").read_text()
    get = lambda key: re.search(rf"^\s+{key}:\s*(.+)$", text, re.M)
    enable = get("enable_secret")
    return {
        "host": get("host").group(1).strip(),
        "port": int(get("port").group(1)),
        "auth_username": get("user").group(1).strip(),
        "auth_password": secret(get("password").group(1)),
        "auth_secondary": secret(enable.group(1)) if enable else "",
    }


async def one(name, device, conn):
    common = dict(conn, auth_strict_key=False, transport="asyncssh", timeout_ops=60,
                  timeout_socket=60, timeout_transport=120)
    if device["platform"] == "eos":
        driver = AsyncEOSDriver(**common)
        setup = []
    else:
        common.pop("auth_secondary")
        driver = AsyncGenericDriver(comms_prompt_pattern=r"^\S+ (\(\S+\) )?[#$] ?$", **common)
        setup = ["config system console", "set output standard", "end"]
    async with driver as d:
        for line in setup:
            await d.send_command(line)
        replies = await d.send_commands(device["commands"])
        return sum(len(r.result) for r in replies)


async def main(premarket, site):
    devices = plan(premarket, site)
    start = time.monotonic()
    sizes = await asyncio.gather(*(one(n, d, access(site, n)) for n, d in devices.items()))
    wall = time.monotonic() - start
    print(json.dumps({
        "devices": len(devices),
        "commands": sum(len(d["commands"]) for d in devices.values()),
        "bytes": sum(sizes),
        "wall_s": round(wall, 2),
    }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
