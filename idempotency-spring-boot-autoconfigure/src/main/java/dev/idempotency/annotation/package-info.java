/**
 * The {@code @Idempotent} annotation: the one thing an application writes to get effectively-once
 * processing of a message listener.
 */
@NullMarked
package dev.idempotency.annotation;

import org.jspecify.annotations.NullMarked;
