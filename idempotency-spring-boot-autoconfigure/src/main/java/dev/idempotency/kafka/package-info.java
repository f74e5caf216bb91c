/**
 * Kafka adapter: binds each record to the delivery context, acknowledges manual-ack listeners after
 * commit, and retries then dead-letters failed records.
 */
@NullMarked
package dev.idempotency.kafka;

import org.jspecify.annotations.NullMarked;
