/**
 * The Redis store (leased mode): a claim is an entry set with {@code SET NX PX}, completed and
 * released by compare-and-set Lua scripts keyed on the claim's token.
 */
@NullMarked
package dev.idempotency.store.redis;

import org.jspecify.annotations.NullMarked;
