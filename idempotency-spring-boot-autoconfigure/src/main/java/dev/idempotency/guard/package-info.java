/**
 * Business idempotency guards: when the business row itself tells a duplicate apart (a state
 * transition, an entity version, a natural unique key), {@link dev.idempotency.guard.BusinessGuards}
 * judges a delivery by the rows its statement affected, in the caller's transaction, without a
 * dedup record.
 */
@NullMarked
package dev.idempotency.guard;

import org.jspecify.annotations.NullMarked;
