# Example: A long-running script with a progress bar
#
# Works for about 20 seconds and prints its progress on stdout as it goes: the output view
# shows each line when the guest writes it. Cancel stops it; a timeout below 20 s ends it too.
import sys
import time

steps = 40
for step in range(1, steps + 1):
    time.sleep(0.5)
    done = step * 30 // steps
    print(f"[{'#' * done}{'.' * (30 - done)}] {step * 100 // steps:3d}%  step {step}/{steps}", flush=True)
print("finished", file=sys.stderr)
