// A Java stack trace in evidence keeps its first line and its last "Caused by:", where the root
// cause sits.
#include "platforms/java_trace.h"

#include <gtest/gtest.h>

namespace dw::platforms {
namespace {

const char* kTrace =
    "org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.\n"
    "\tat org.apache.kafka.connect.runtime.WorkerSinkTask.deliverMessages(WorkerSinkTask.java:632)\n"
    "\tat org.apache.kafka.connect.runtime.WorkerSinkTask.poll(WorkerSinkTask.java:350)\n"
    "\tat org.apache.kafka.connect.runtime.WorkerTask.run(WorkerTask.java:204)\n"
    "Caused by: org.apache.kafka.connect.errors.DataException: conversion failed\n"
    "\tat io.confluent.connect.avro.AvroConverter.toConnectData(AvroConverter.java:118)\n"
    "\t... 12 more\n"
    "Caused by: org.apache.kafka.common.errors.RecordTooLargeException: The message is 1048698 bytes\n"
    "\t... 14 more";

TEST(JavaTraceTest, KeepsTheFirstLineAndTheLastCausedBy) {
  EXPECT_EQ(TraceEvidence(kTrace, 1),
            "org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.\n...\n"
            "Caused by: org.apache.kafka.common.errors.RecordTooLargeException: The message is 1048698 bytes");
}

TEST(JavaTraceTest, AShortTraceIsKeptWhole) {
  EXPECT_EQ(TraceEvidence("java.lang.IllegalStateException: boom", 3), "java.lang.IllegalStateException: boom");
  EXPECT_EQ(TraceEvidence("a\nb", 2), "a\nb");
}

TEST(JavaTraceTest, ATraceWithoutCauseKeepsItsHead) {
  EXPECT_EQ(TraceEvidence("a\n\tat b\n\tat c\n\tat d", 2), "a\n\tat b");
}

TEST(JavaTraceTest, ACauseAlreadyInTheHeadIsNotRepeated) {
  EXPECT_EQ(TraceEvidence("a\nCaused by: x\n\tat y", 2), "a\nCaused by: x");
}

TEST(JavaTraceTest, AnIndentedCausedByCounts) {
  EXPECT_EQ(TraceEvidence("a\n\tat b\n  Caused by: z", 1), "a\n...\nCaused by: z");
}

}  // namespace
}  // namespace dw::platforms
