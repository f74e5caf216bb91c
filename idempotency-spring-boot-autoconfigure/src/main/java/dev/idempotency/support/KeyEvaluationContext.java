package dev.idempotency.support;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.ConstructorResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.IndexAccessor;
import org.springframework.expression.MethodResolver;
import org.springframework.expression.OperatorOverloader;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.TypeComparator;
import org.springframework.expression.TypeConverter;
import org.springframework.expression.TypeLocator;
import org.springframework.expression.TypedValue;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * The evaluation context of one key expression: the variables {@code MethodBasedEvaluationContext}
 * offers (each parameter by name, {@code #p0}/{@code #a0}, the delivery's variables such as
 * {@code #record}, which win over a parameter of the same name) without building its maps for every
 * message. Resolvers, accessors and converters are one shared, warm set: a context of their own
 * would start with cold reflection caches on every message.
 */
final class KeyEvaluationContext implements EvaluationContext {

	private static final StandardEvaluationContext SHARED = new StandardEvaluationContext();

	static {
		// Initialise the lazily created lists once, before threads share them.
		SHARED.getPropertyAccessors();
		SHARED.getIndexAccessors();
		SHARED.getConstructorResolvers();
		SHARED.getMethodResolvers();
	}

	private final TypedValue root;

	private final @Nullable String @Nullable [] parameterNames;

	private final @Nullable Object[] args;

	private final Map<String, Object> deliveryVariables;

	private @Nullable Map<String, @Nullable Object> assigned;

	KeyEvaluationContext(Object root, @Nullable String @Nullable [] parameterNames, @Nullable Object[] args,
			Map<String, Object> deliveryVariables) {
		this.root = new TypedValue(root);
		this.parameterNames = parameterNames;
		this.args = args;
		this.deliveryVariables = deliveryVariables;
	}

	@Override
	public @Nullable Object lookupVariable(String name) {
		if (this.assigned != null && this.assigned.containsKey(name)) {
			return this.assigned.get(name);
		}
		Object delivered = this.deliveryVariables.get(name);
		if (delivered != null) {
			return delivered;
		}
		if (this.parameterNames != null) {
			for (int i = 0; i < this.parameterNames.length && i < this.args.length; i++) {
				if (name.equals(this.parameterNames[i])) {
					return this.args[i];
				}
			}
		}
		return positional(name);
	}

	/** {@code #p0} or {@code #a0}, as {@code MethodBasedEvaluationContext} names them. */
	private @Nullable Object positional(String name) {
		if (name.length() < 2 || (name.charAt(0) != 'p' && name.charAt(0) != 'a')) {
			return null;
		}
		int index = 0;
		for (int i = 1; i < name.length(); i++) {
			char digit = name.charAt(i);
			if (digit < '0' || digit > '9' || index > this.args.length) {
				return null;
			}
			index = index * 10 + (digit - '0');
		}
		return (index < this.args.length) ? this.args[index] : null;
	}

	@Override
	public void setVariable(String name, @Nullable Object value) {
		if (this.assigned == null) {
			this.assigned = new HashMap<>();
		}
		this.assigned.put(name, value);
	}

	@Override
	public TypedValue getRootObject() {
		return this.root;
	}

	@Override
	public List<PropertyAccessor> getPropertyAccessors() {
		return SHARED.getPropertyAccessors();
	}

	@Override
	public List<IndexAccessor> getIndexAccessors() {
		return SHARED.getIndexAccessors();
	}

	@Override
	public List<ConstructorResolver> getConstructorResolvers() {
		return SHARED.getConstructorResolvers();
	}

	@Override
	public List<MethodResolver> getMethodResolvers() {
		return SHARED.getMethodResolvers();
	}

	@Override
	public @Nullable BeanResolver getBeanResolver() {
		return null;
	}

	@Override
	public TypeLocator getTypeLocator() {
		return SHARED.getTypeLocator();
	}

	@Override
	public TypeConverter getTypeConverter() {
		return SHARED.getTypeConverter();
	}

	@Override
	public TypeComparator getTypeComparator() {
		return SHARED.getTypeComparator();
	}

	@Override
	public OperatorOverloader getOperatorOverloader() {
		return SHARED.getOperatorOverloader();
	}

}
