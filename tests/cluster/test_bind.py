"""``serve --replicas`` on loopback keeps every port on loopback: the shards'
and Ray's own (its GCS, raylet, object manager, each worker's gRPC server),
read from the kernel's socket tables for the processes that serve started."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys

import pytest


def _tree(root: int) -> set:
    """``root`` and every process under it."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:  # it ended meanwhile
                continue
            parents[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
    found, todo = {root}, [root]
    while todo:
        parent = todo.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                found.add(pid)
                todo.append(pid)
    return found


def _socket_inodes(pid: int) -> set:
    inodes = set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def _address(hex_address: str):
    """An address of /proc/net/tcp{,6}: 32-bit words in the kernel's byte order."""
    raw = bytes.fromhex(hex_address)
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4)) if sys.byteorder == "little" else raw
    return ipaddress.ip_address(words)


def listening(pids: set) -> list:
    """``(process name, address, port)`` of every TCP socket these processes listen on."""
    owner = {inode: pid for pid in pids for inode in _socket_inodes(pid)}
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            next(f)
            for line in f:
                fields = line.split()
                if fields[3] != "0A" or int(fields[9]) not in owner:  # 0A: LISTEN
                    continue
                hex_address, hex_port = fields[1].split(":")
                with open(f"/proc/{owner[int(fields[9])]}/comm") as c:
                    name = c.read().strip()
                found.append((name, _address(hex_address), int(hex_port, 16)))
    return found


def _loopback(address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


@pytest.mark.slow
def test_on_loopback_no_port_of_the_cluster_or_its_ray_listens_on_another_interface(cluster):
    sockets = listening(_tree(cluster.proc.pid))
    names = {name for name, _, _ in sockets}
    ports = {port for _, _, port in sockets}
    # the test sees the shards and Ray's own servers, not only the processes it started
    assert {int(u.split(":")[2].split("/")[0]) for u in cluster.urls} <= ports
    assert {"gcs_server", "raylet"} <= names, sockets
    assert any(name.startswith("ray::") for name in names), sockets  # the shards' own gRPC servers
    wide = [(name, str(address), port) for name, address, port in sockets if not _loopback(address)]
    assert not wide, f"listening beyond loopback: {wide}"


def test_the_socket_table_reader_sees_a_wildcard_and_a_loopback_server():
    with socket.create_server(("0.0.0.0", 0)) as wide, socket.create_server(("127.0.0.1", 0)) as narrow:
        seen = {port: address for _, address, port in listening({os.getpid()})}
        assert str(seen[wide.getsockname()[1]]) == "0.0.0.0"
        assert _loopback(seen[narrow.getsockname()[1]])
