package dev.idempotency.support;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.KeyResolver;
import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.core.ParameterNameDiscoverer;
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

	private final ParameterNameDiscoverer parameterNames = new CachingParameterNameDiscoverer(
			super.getParameterNameDiscoverer());

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

	/**
	 * Parses the expression.
	 * @throws IllegalStateException with the parser's message if it does not parse
	 */
	@Override
	public void validate(String expression, Method method) {
		if (expression.isEmpty()) {
			return;
		}
		try {
			getParser().parseExpression(expression);
		}
		catch (ParseException ex) {
			throw new IllegalStateException("Key expression '" + expression + "' of " + describe(method)
					+ " (" + method.getDeclaringClass().getName() + ") does not parse: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Evaluates an expression to a value, as key expressions are evaluated (same variables, same
	 * cache and compilation): the payload of a fingerprint expression.
	 * @param expression the expression, not empty
	 * @param method the invoked method
	 * @param args the arguments
	 * @param target the target object
	 * @param delivery the current delivery, or {@code null}
	 * @return the value, possibly {@code null}
	 * @throws InvalidFingerprintException if the expression does not parse or fails
	 * @since 0.2.0
	 */
	public @Nullable Object evaluatePayload(String expression, Method method, @Nullable Object[] args, Object target,
			@Nullable DeliveryContext delivery) {
		try {
			return getValue(expression, method, args, target, delivery);
		}
		catch (ParseException | EvaluationException ex) {
			throw new InvalidFingerprintException("Fingerprint expression '" + expression + "' of " + describe(method)
					+ " failed: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Parses a fingerprint expression.
	 * @param expression the expression, not empty
	 * @param method the annotated method
	 * @throws IllegalStateException with the parser's message if it does not parse
	 * @since 0.2.0
	 */
	public void validatePayload(String expression, Method method) {
		try {
			getParser().parseExpression(expression);
		}
		catch (ParseException ex) {
			throw new IllegalStateException("Fingerprint expression '" + expression + "' of " + describe(method)
					+ " (" + method.getDeclaringClass().getName() + ") does not parse: " + ex.getMessage(), ex);
		}
	}

	private @Nullable Object evaluate(String expression, Method method, @Nullable Object[] args, Object target,
			@Nullable DeliveryContext delivery) {
		try {
			return getValue(expression, method, args, target, delivery);
		}
		catch (ParseException | EvaluationException ex) {
			throw new InvalidIdempotencyKeyException(
					"Key expression '" + expression + "' of " + describe(method) + " failed: " + ex.getMessage(), ex);
		}
	}

	private @Nullable Object getValue(String expression, Method method, @Nullable Object[] args, Object target,
			@Nullable DeliveryContext delivery) {
		Expression parsed = getExpression(this.expressions, new AnnotatedElementKey(method, target.getClass()),
				expression);
		KeyEvaluationContext context = new KeyEvaluationContext(new KeyExpressionRoot(method, args, target),
				this.parameterNames.getParameterNames(method), args,
				(delivery != null) ? delivery.variables() : Map.of());
		return parsed.getValue(context);
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

	/**
	 * Parameter names read once per method: the default discoverer reflects on every call, and key
	 * resolution runs for every message.
	 */
	private static final class CachingParameterNameDiscoverer implements ParameterNameDiscoverer {

		private static final String[] UNKNOWN = new String[0];

		private final ParameterNameDiscoverer delegate;

		private final Map<Method, String[]> names = new ConcurrentHashMap<>(64);

		CachingParameterNameDiscoverer(ParameterNameDiscoverer delegate) {
			this.delegate = delegate;
		}

		@Override
		public @Nullable String @Nullable [] getParameterNames(Method method) {
			String[] found = this.names.computeIfAbsent(method, (key) -> {
				String[] discovered = this.delegate.getParameterNames(key);
				return (discovered != null) ? discovered : UNKNOWN;
			});
			return (found != UNKNOWN) ? found : null;
		}

		@Override
		public @Nullable String @Nullable [] getParameterNames(Constructor<?> constructor) {
			return this.delegate.getParameterNames(constructor);
		}

	}

}
