/**
 * Auto-configuration of the Kafka adapter: delivery context on the listener containers, acknowledgement
 * after commit, the retrying, dead-lettering error handler and the start-up retention check.
 */
@NullMarked
package dev.idempotency.kafka.autoconfigure;

import org.jspecify.annotations.NullMarked;
