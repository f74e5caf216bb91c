package dev.idempotency.support;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * The {@code #root} object of a key expression.
 *
 * @param method the invoked method
 * @param args the arguments ({@code #root.args})
 * @param target the target object
 * @since 0.1.0
 */
public record KeyExpressionRoot(Method method, @Nullable Object[] args, Object target) {
}
