#!/usr/bin/env python3
"""Which uniform registers the LDGSTS (cp.async) of each kernel take their memory
descriptor from, and whether anything in the kernel writes them.

On sm_90 every global access names a 64-bit descriptor in a uniform register pair
(desc[URn]): the default one loaded from c[0x0][0x208], or, for an access with an
L2::cache_hint, the createpolicy value. docs/perf.md records hinted ring copies whose
LDGSTS named desc[UR1] while nothing wrote UR0/UR1, and an "illegal instruction".
Uniform registers an LDGSTS adds to its shared address ([Rn+URm]) are checked too.

Reads the SASS on stdin, either from a current cuobjdump -sass / nvdisasm (which print
desc[URn]) or from an older nvdisasm -hex, which omits the operand: there the register is
bits 0-5 of the instruction's second 64-bit word (checked here against the default
descriptor, ULDC.64 URn, c[0x0][0x208], of an unhinted copy). Prints one line per kernel;
exits 1 if an LDGSTS names a register pair that nothing in its kernel writes.
  cuobjdump -sass BINARY | python3 tests/device/sass-desc.py
"""
import re
import sys

kernels = {}  # name -> list of (text, hi word or None)
name = None
lines = sys.stdin.read().splitlines()
for i, line in enumerate(lines):
    m = re.match(r"\s*(?:Function : |\.text\.)(\S+?):?\s*$", line)
    if m:
        name = m.group(1)
        kernels.setdefault(name, [])
        continue
    m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
    if not m or name is None:
        continue
    hi = None
    if i + 1 < len(lines):
        h = re.match(r"\s*/\* (0x[0-9a-f]{16}) \*/\s*$", lines[i + 1])
        if h:
            hi = int(h.group(1), 16)
    kernels[name].append((m.group(1).strip(), hi))

status = 0
for name, code in kernels.items():
    written = set()
    for text, _ in code:
        op = re.match(r"(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)\s+(UR\d+)\b", text)
        if op:
            n = int(op.group(2)[2:])
            written.add(n)
            if ".64" in op.group(1) or ".WIDE" in op.group(1):
                written.add(n + 1)
    descs, others = [], []  # the descriptor pairs; other uniform registers read (an address offset)
    for text, hi in code:
        if not re.match(r"(?:@!?P\w+\s+)?LDGSTS", text):
            continue
        m = re.search(r"desc\[UR(\d+)\]", text)
        if m:
            descs.append(int(m.group(1)))
        elif hi is not None:
            descs.append(hi & 0x3F)
        others += [int(u) for u in re.findall(r"\+UR(\d+)", text)]
    if not descs:
        continue
    missing = sorted({d for d in descs if d not in written or d + 1 not in written})
    unwritten = sorted({u for u in others if u not in written})
    counts = {}
    for d in descs:
        counts[d] = counts.get(d, 0) + 1
    used = ", ".join(f"UR{d} x{c}" for d, c in sorted(counts.items()))
    verdict = "every descriptor pair written" if not missing else "NEVER WRITTEN: " + ", ".join(f"UR{d}/UR{d + 1}" for d in missing)
    if others:
        verdict += f"; {len(others)} read a uniform address offset" + (
            ", NEVER WRITTEN: " + ", ".join(f"UR{u}" for u in unwritten) if unwritten else ", written")
    print(f"{name}: {len(descs)} LDGSTS, desc {used}: {verdict}")
    if missing or unwritten:
        status = 1
sys.exit(status)
