#!/usr/bin/env bash
export SPARK_LOCAL_IP=127.0.0.1
