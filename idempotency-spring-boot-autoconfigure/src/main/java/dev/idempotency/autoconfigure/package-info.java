/**
 * Auto-configuration of the interceptor, the stores and the meters; the only package that imports
 * Spring Boot.
 */
@NullMarked
package dev.idempotency.autoconfigure;

import org.jspecify.annotations.NullMarked;
