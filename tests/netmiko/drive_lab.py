"""Drives the premarket lab with netmiko's arista_eos and fortinet drivers, as an automation
engineer would drive the real devices. Called by tests/lab_netmiko.rs with the lab's ports and
secret files; prints one CHECK line per assertion and exits non-zero on the first failure."""

import json
import sys

from netmiko import ConnectHandler


def secret(path):
    with open(path) as f:
        return f.read().strip()


def check(name, ok, detail=""):
    print(f"CHECK {name}: {'ok' if ok else 'FAILED'}")
    if not ok:
        print(detail)
        sys.exit(1)


def eos(port, password, enable):
    sw = ConnectHandler(device_type="arista_eos", host="127.0.0.1", port=port, username="premarket",
                        password=password, secret=enable, fast_cli=False, conn_timeout=10)
    check("eos unprivileged prompt", sw.find_prompt() == "sw1>", sw.find_prompt())
    out = sw.send_command("show running-config")
    check("eos privilege error without enable", "% Invalid input (privileged mode required)" in out, out)
    sw.enable()
    check("eos enable with Password:", sw.find_prompt() == "sw1#", sw.find_prompt())
    out = sw.send_command("show running-config")
    check("eos running-config", "queue-monitor length" in out and out.rstrip().endswith("end"), out)
    out = sw.send_command("show running-config diffs")
    check("eos diffs empty", out.strip() == "", repr(out))
    doc = json.loads(sw.send_command("show queue-monitor length status | json"))
    check("eos lanz json", doc.get("lanzEnabled") is True, doc)
    doc = json.loads(sw.send_command("show version | json"))
    check("eos version json", doc.get("version") == "4.31.6M", doc)
    sw.disconnect()


def fortigate(port, password):
    fw = ConnectHandler(device_type="fortinet", host="127.0.0.1", port=port, username="premarket",
                        password=password, fast_cli=False, conn_timeout=10)
    check("fortigate prompt", fw.find_prompt() == "fw1 #", fw.find_prompt())
    out = fw.send_command("get system status")
    check("fortigate status", "Version: FortiGate-201G v7.6.7" in out, out)
    fw.send_command("diagnose sys session filter clear")
    fw.send_command("diagnose sys session filter dst 10.20.1.20")
    fw.send_command("diagnose sys session filter dport 5000")
    out = fw.send_command("diagnose sys session filter")
    check("fortigate filter readback", "dest port: 5000-5000" in out and "dest ip: 10.20.1.20-10.20.1.20" in out, out)
    out = fw.send_command("diagnose sys session list")
    check("fortigate filtered list", "total session 1" in out and "ofld-O" in out, out)
    out = fw.send_command("diagnose sys mcast-session list")
    check("fortigate mcast", "239.1.1.1.30001" in out, out)
    fw.disconnect()


if __name__ == "__main__":
    fw_port, sw_port, fw_pw, sw_pw, sw_enable = sys.argv[1:6]
    eos(int(sw_port), secret(sw_pw), secret(sw_enable))
    fortigate(int(fw_port), secret(fw_pw))
    print("ALL OK")
