/**
 * Auto-configuration of the Kafka adapter: delivery context on the listener containers, acknowledgement
 * after commit, the retrying, dead-lettering error handler and the start-up retention check; Kafka as
 * a transport; its dead-letter topics in the {@code idempotency} endpoint.
 */
@NullMarked
package dev.idempotency.kafka.autoconfigure;

import org.jspecify.annotations.NullMarked;
