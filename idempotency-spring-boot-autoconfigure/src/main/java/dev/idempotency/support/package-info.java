/**
 * Framework-level implementation of {@code @Idempotent}: the AOP advisor and interceptor, SpEL key
 * resolution and the in-memory store. Spring Framework only, no Spring Boot.
 */
@NullMarked
package dev.idempotency.support;

import org.jspecify.annotations.NullMarked;
