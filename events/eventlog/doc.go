// Package eventlog is the event log, on NATS JetStream: one append-only
// stream, one subject per tournament (referto.t.<id>), one message per
// accepted command, optimistic concurrency through
// Nats-Expected-Last-Subject-Sequence, idempotency through Nats-Msg-Id, and
// an embedded nats-server that fsyncs every write by default. Snapshot and
// RestoreSnapshot take the stream to a backup and back through JetStream's
// own snapshot API.
package eventlog
