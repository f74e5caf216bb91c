package dev.idempotency.support;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.KeyResolver;
import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Resolves keys from SpEL expressions over the method parameters ({@code #msg}, {@code #p0},
 * {@code #root.args}) and the delivery's variables ({@code #record}, {@code #headers}). Parsed
 * expressions are cached per method and compiled by SpEL once they have run (mixed mode). An empty
 * expression means the delivery's message id.
 *
 * @since 0.1.0
 */
public class SpelKeyResolver extends CachedExpressionEvaluator implements KeyResolver {

	private final Map<ExpressionKey, Expression> expressions = new ConcurrentHashMap<>(64);

	public SpelKeyResolver() {
		super(new SpelExpressionParser(
				new SpelParserConfiguration(SpelCompilerMode.MIXED, SpelKeyResolver.class.getClassLoader())));
	}

	@Override
	public String resolve(String expression, Method method, @Nullable Object[] args, Object target,
			@Nullable DeliveryContext delivery) {
		Object key = expression.isEmpty() ? messageId(method, delivery)
				: evaluate(expression, method, args, target, delivery);
		String value = (key != null) ? key.toString() : null;
		if (value == null || value.isBlank()) {
			throw new InvalidIdempotencyKeyException("Key expression '" + expression + "' of " + describe(method)
					+ " resolved to " + ((value == null) ? "null" : "a blank string")
					+ "; a message without a key cannot be deduplicated");
		}
		return value;
	}

	private @Nullable Object evaluate(String expression, Method method, @Nullable Object[] args, Object target,
			@Nullable DeliveryContext delivery) {
		try {
			Expression parsed = getExpression(this.expressions, new AnnotatedElementKey(method, target.getClass()),
					expression);
			MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
					new KeyExpressionRoot(method, args, target), method, args, getParameterNameDiscoverer());
			if (delivery != null) {
				delivery.variables().forEach(context::setVariable);
			}
			return parsed.getValue(context);
		}
		catch (ParseException | EvaluationException ex) {
			throw new InvalidIdempotencyKeyException(
					"Key expression '" + expression + "' of " + describe(method) + " failed: " + ex.getMessage(), ex);
		}
	}

	private static @Nullable Object messageId(Method method, @Nullable DeliveryContext delivery) {
		if (delivery == null) {
			throw new InvalidIdempotencyKeyException(describe(method)
					+ " has no key expression and is not called by a message listener adapter, so there is no "
					+ "message id to use; set @Idempotent(key = \"...\")");
		}
		return delivery.messageId();
	}

	private static String describe(Method method) {
		return "@Idempotent method " + method.getDeclaringClass().getSimpleName() + "#" + method.getName();
	}

}
