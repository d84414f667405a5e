# Example: CSV summary and chart
# Image: python-data
# Files: sales.csv
#
# Reads sales.csv (uploaded next to this script), prints revenue per region and product, and
# writes a table and a chart into out/: files there come back to the workbench after the run.
import os

import matplotlib.pyplot as plt
import pandas as pd

sales = pd.read_csv("sales.csv", parse_dates=["date"])
sales["revenue"] = sales["units"] * sales["unit_price"]

summary = sales.pivot_table(index="region", columns="product", values="revenue",
                            aggfunc="sum", fill_value=0).round(2)
summary["total"] = summary.sum(axis=1)
print(f"{len(sales)} sales from {sales['date'].min():%Y-%m-%d} to {sales['date'].max():%Y-%m-%d}")
print(summary.to_string())

os.makedirs("out", exist_ok=True)
summary.to_csv("out/summary.csv")

monthly = sales.groupby([sales["date"].dt.to_period("M"), "region"])["revenue"].sum().unstack()
ax = monthly.plot(kind="bar", figsize=(7, 4), title="Revenue per month and region")
ax.set_xlabel("month")
ax.set_ylabel("revenue")
plt.tight_layout()
plt.savefig("out/chart.png", dpi=100)
print("wrote out/summary.csv and out/chart.png")
