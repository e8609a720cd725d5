#!/usr/bin/env python3
"""A switch on a real SSH server that is not russh (paramiko), for premarket's SSH tests.

It plays an EOS prompt on a PTY shell (`sw1>`, `enable` gives `sw1#`, `show ...` answers) for one
connection, and misbehaves as the test asks:

  --rekey same|swap --rekey-after N   after the Nth `show` command's output and before its prompt,
                                      re-keys (renegotiate) with the same host key, or with a new
                                      one nobody trusted
  --flood N                           after the shell opens and before the first prompt, opens N
                                      channels towards the client (x11, forwarded-tcpip,
                                      auth-agent, direct-tcpip, session in turn), all sent at
                                      once, then waits for every answer
  --announce N                        sends N host-key announcements (hostkeys-00@openssh.com)
  --raw-ident endless|lines           not SSH at all: an identification line that never ends, or
                                      lines that never end before it

Prints `PORT n` and `HOSTKEY <type> <base64>` when listening, and `RESULT {json}` when the
connection is over: the lines typed after the re-key, the answers to the channel opens.
"""

import argparse
import json
import socket
import sys
import threading
import time

import paramiko
from paramiko.common import (
    MSG_CHANNEL_OPEN_FAILURE,
    MSG_CHANNEL_OPEN_SUCCESS,
    cMSG_CHANNEL_OPEN,
)
from paramiko.message import Message

KINDS = ["x11", "forwarded-tcpip", "auth-agent@openssh.com", "direct-tcpip", "session"]
VERSION = "Arista DCS-7050TX-64\r\nSoftware image version: 4.31.6M\r\n"
VERSION_JSON = (
    '{"mfgName": "Arista", "modelName": "DCS-7050TX-64", "version": "4.31.6M", '
    '"uptime": 1234.5}\r\n'
)


def say(line):
    print(line, flush=True)


class Server(paramiko.ServerInterface):
    def __init__(self, password):
        self.password = password
        self.shell = threading.Event()

    def check_auth_password(self, username, password):
        if password == self.password:
            return paramiko.AUTH_SUCCESSFUL
        return paramiko.AUTH_FAILED

    def get_allowed_auths(self, username):
        return "password"

    def check_channel_request(self, kind, chanid):
        if kind == "session":
            return paramiko.OPEN_SUCCEEDED
        return paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_pty_request(self, *args):
        return True

    def check_channel_shell_request(self, channel):
        self.shell.set()
        return True


class Answers:
    """Counts the client's answers to the channels opened towards it."""

    def __init__(self, transport):
        self.confirmed = 0
        self.refused = 0
        self.done = threading.Event()
        self.expected = 0
        self.lock = threading.Lock()
        self.transport = transport
        transport._handler_table[MSG_CHANNEL_OPEN_SUCCESS] = self.success
        transport._handler_table[MSG_CHANNEL_OPEN_FAILURE] = self.failure

    def count(self, field):
        with self.lock:
            setattr(self, field, getattr(self, field) + 1)
            if self.confirmed + self.refused >= self.expected:
                self.done.set()

    def success(self, m):
        self.count("confirmed")

    def failure(self, m):
        self.count("refused")


def open_message(kind, chanid):
    m = Message()
    m.add_byte(cMSG_CHANNEL_OPEN)
    m.add_string(kind)
    m.add_int(chanid)
    m.add_int(2 << 20)
    m.add_int(32768)
    if kind == "x11":
        m.add_string("127.0.0.1")
        m.add_int(6010)
    elif kind in ("forwarded-tcpip", "direct-tcpip"):
        m.add_string("127.0.0.1")
        m.add_int(22)
        m.add_string("127.0.0.1")
        m.add_int(40000 + chanid % 20000)
    return m


def flood(transport, answers, n):
    answers.expected = n
    for i in range(n):
        transport._send_user_message(open_message(KINDS[i % len(KINDS)], 1000 + i))
    answers.done.wait(120)


def announce(transport, n):
    keys = [paramiko.ECDSAKey.generate().asbytes() for _ in range(8)]
    for _ in range(n):
        transport.global_request("hostkeys-00@openssh.com", data=keys, wait=False)


def read_line(chan):
    """One line typed by the client, echoed as a terminal would; None when it left."""
    line = b""
    while True:
        b = chan.recv(1)
        if not b:
            return None
        if b in (b"\r", b"\n"):
            chan.sendall(line + b"\r\n")
            return line.decode(errors="replace")
        line += b


def serve(chan, transport, args, result):
    privileged = False
    shows = 0
    rekeyed = False
    prompt = lambda: "sw1#" if privileged else "sw1>"
    chan.sendall(prompt())
    while True:
        line = read_line(chan)
        if line is None:
            return
        if rekeyed:
            result["typed_after_rekey"].append(line)
        line = line.strip()
        out = ""
        if line == "enable":
            privileged = True
        elif line == "terminal length 0":
            out = "Pagination disabled.\r\n"
        elif line == "terminal width 511":
            out = "Width set to 511 columns.\r\n"
        elif line == "show version":
            out = VERSION
        elif line == "show version | json":
            out = VERSION_JSON
        elif line.startswith("show "):
            out = "output of " + line + "\r\n"
        elif line:
            out = "% Invalid input\r\n"
        chan.sendall(out)
        if line.startswith("show "):
            shows += 1
            if args.rekey != "none" and shows == args.rekey_after and not rekeyed:
                if args.rekey == "swap":
                    new = paramiko.ECDSAKey.generate()
                    result["new_key"] = new.get_name() + " " + new.get_base64()
                    transport.add_server_key(new)
                try:
                    transport.renegotiate_keys()
                    result["rekey"] = "completed"
                except Exception as e:  # the client ended the session during the re-key
                    result["rekey"] = "failed: " + str(e)
                    return
                rekeyed = True
        chan.sendall(prompt())


def raw_ident(sock, how):
    conn, _ = sock.accept()
    sent = 0
    try:
        if how == "endless":
            conn.sendall(b"SSH-2.0-")
        chunk = (b"A" * 4095 + b"\n") if how == "lines" else b"A" * 4096
        deadline = time.time() + 30
        while time.time() < deadline:
            conn.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass
    say("RESULT " + json.dumps({"sent": sent}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--password", default="pw")
    p.add_argument("--rekey", choices=["none", "same", "swap"], default="none")
    p.add_argument("--rekey-after", type=int, default=2)
    p.add_argument("--flood", type=int, default=0)
    p.add_argument("--announce", type=int, default=0)
    p.add_argument("--raw-ident", choices=["endless", "lines"])
    args = p.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    say("PORT %d" % sock.getsockname()[1])
    if args.raw_ident:
        say("HOSTKEY none")
        return raw_ident(sock, args.raw_ident)
    host_key = paramiko.ECDSAKey.generate()
    say("HOSTKEY %s %s" % (host_key.get_name(), host_key.get_base64()))

    conn, _ = sock.accept()
    transport = paramiko.Transport(conn)
    transport.add_server_key(host_key)
    server = Server(args.password)
    result = {"typed_after_rekey": [], "rekey": "none", "confirmed": 0, "refused": 0}
    answers = Answers(transport)
    try:
        transport.start_server(server=server)
        chan = transport.accept(30)
        if chan is not None and server.shell.wait(30):
            if args.flood:
                flood(transport, answers, args.flood)
            if args.announce:
                announce(transport, args.announce)
            serve(chan, transport, args, result)
    except Exception as e:
        result["error"] = str(e)
    result["confirmed"] = answers.confirmed
    result["refused"] = answers.refused
    say("RESULT " + json.dumps(result))
    transport.close()


if __name__ == "__main__":
    sys.exit(main())
