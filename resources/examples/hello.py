# Example: Hello from the sandbox
# Runs inside a fresh microVM; the VM and its disk are gone when it ends.
import os
import platform
import sys

print("Hello from the sandbox!")
print("kernel:", platform.release())
print("python:", sys.version.split()[0])
print("cpus:", os.cpu_count())
print("a line on stderr", file=sys.stderr)
