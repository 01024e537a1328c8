"""Checks docs/cli.md against a tool (`duet` or `duet-run`, named by the
binary's file name): every subcommand of `<tool> --help` has a section
"## `<tool> <name>`", every option and positional of its `--help` appears in
that section (-h/--help in the introduction), and the exit-code table lists
exactly the codes of runtime/cli/ExitCodes.h.

usage: python3 check_cli_docs.py <tool> <docs/cli.md> <ExitCodes.h>
"""
import os
import re
import subprocess
import sys


def help_sections(text):
    """{section title: [lines]} of a CLI11 help text."""
    sections, current = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            current = sections.setdefault(line[:-1], [])
        elif current is not None and line.strip():
            current.append(line)
    return sections


def names(lines):
    """The option or positional names of a help section's entries."""
    found = []
    for line in lines:
        # An entry starts two spaces in; its continuation lines further in.
        if not line.startswith("  ") or line.startswith("   "):
            continue
        first = line.split()[0]
        found += [n for n in first.split(",") if n]
    return found


def mentioned(name, text):
    return re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text) is not None


def main():
    duet, doc_path, commands_h = sys.argv[1:4]
    tool = os.path.basename(duet)
    doc = open(doc_path).read()
    errors = []

    top = help_sections(subprocess.run([duet, "--help"], capture_output=True,
                                       text=True, check=True).stdout)
    subcommands = [line.split()[0] for line in top.get("Subcommands", [])
                   if line.startswith("  ") and not line.startswith("   ")]
    for option in names(top.get("Options", [])):
        if not mentioned(option, doc):
            errors.append(f"{tool} {option} is not in {doc_path}")

    parts = re.split(r"^## ", doc, flags=re.M)
    for sub in subcommands:
        section = next((p for p in parts if p.startswith(f"`{tool} {sub}`")), None)
        if section is None:
            errors.append(f"{doc_path} has no section \"## `{tool} {sub}`\"")
            continue
        sub_help = help_sections(subprocess.run(
            [duet, sub, "--help"], capture_output=True, text=True, check=True).stdout)
        for kind in ("Options", "Positionals"):
            for name in names(sub_help.get(kind, [])):
                # Every command has -h/--help; the introduction says so once.
                if name in ("-h", "--help"):
                    continue
                if not mentioned(name, section):
                    errors.append(f"{tool} {sub}: {kind[:-1].lower()} {name} is not in "
                                  f"the section of {doc_path}")

    # ExitCodes.h spells the library's codes as ErrorCode values (error_code.h,
    # in include/duet/ of the same tree) and its own as numbers.
    status_h = os.path.join(os.path.dirname(commands_h), "..", "..", "include", "duet",
                            "error_code.h")
    error_codes = dict(re.findall(r"^\s*(\w+) = (\d+),", open(status_h).read(), re.M))
    codes = set()
    for value in re.findall(r"^\s*k\w+ = ([^,]+),", open(commands_h).read(), re.M):
        named = re.fullmatch(r"static_cast<int>\(ErrorCode::(\w+)\)", value.strip())
        codes.add(int(error_codes[named.group(1)]) if named else int(value))
    exit_part = next((p for p in parts if p.lower().startswith("exit codes")), "")
    documented = {int(v) for v in re.findall(r"^\| *`?(\d+)`? *\|", exit_part, re.M)}
    if codes != documented:
        errors.append(f"exit codes in {os.path.basename(commands_h)} {sorted(codes)}, in the "
                      f"\"## Exit codes\" table of {doc_path} {sorted(documented)}")

    if errors:
        sys.exit("\n".join(errors))
    print(f"ok: {len(subcommands)} subcommands, exit codes {sorted(codes)}")


if __name__ == "__main__":
    main()
