/**
 * Ahead-of-time processing and native-image hints of the engine: reflection on the argument and
 * result types of {@code @Idempotent} methods. Each technology registers the resources it reads
 * (schema and Lua scripts) in its own {@code autoconfigure} package.
 */
@NullMarked
package dev.idempotency.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
