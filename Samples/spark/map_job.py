#!/usr/bin/env python3
"""Maps an NDJSON dataset with RestMap as a Spark stage: each partition's lines are piped
through `restmap map --input ndjson --entity ENTITY --format ndjson` (RDD.pipe), and the records
come back as NDJSON lines in input order.

usage: map_job.py --restmap BIN --schema SCHEMA --entity ENTITY INPUT OUTPUT [--partitions N] [--master local[2]]

On a cluster, ship the binary, its plugins and the schema with `spark-submit --files
restmap,librestmap-dates.so,librestmap-dates-calendar.so,schema.yaml` and pass `--restmap ./restmap --schema schema.yaml`
(the files land in each executor's working directory; see Docs/Pipelines.md).
"""
import argparse
import os
import shlex

from pyspark import SparkFiles
from pyspark.sql import SparkSession


def main():
    arguments = argparse.ArgumentParser()
    arguments.add_argument("--restmap", required=True)
    arguments.add_argument("--schema", required=True)
    arguments.add_argument("--entity", required=True)
    arguments.add_argument("--partitions", type=int, default=4)
    arguments.add_argument("--master", default="local[2]")
    arguments.add_argument("input")
    arguments.add_argument("output")
    options = arguments.parse_args()

    spark = SparkSession.builder.master(options.master).appName("restmap-map").getOrCreate()
    context = spark.sparkContext
    context.setLogLevel("ERROR")
    restmap = os.path.abspath(options.restmap) if os.path.exists(options.restmap) else SparkFiles.get(options.restmap)
    schema = os.path.abspath(options.schema) if os.path.exists(options.schema) else SparkFiles.get(options.schema)
    command = [restmap, "map", "--schema", schema, "--input", "ndjson", "--entity", options.entity,
               "--format", "ndjson", "--jobs", "1", "-"]
    lines = context.textFile(options.input, minPartitions=options.partitions)
    # pipe keeps the order of lines within a partition; collect keeps the order of partitions.
    records = lines.pipe(shlex.join(command), checkCode=True).collect()
    with open(options.output, "w") as file:
        for record in records:
            file.write(record + "\n")
    print(f"{len(records)} records from {lines.getNumPartitions()} partitions")
    spark.stop()


main()
