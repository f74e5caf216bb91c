package dev.idempotency.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** The condition of {@link ConditionalOnFilterLayer}. */
final class OnFilterLayerCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		String layer = (String) metadata.getAnnotationAttributes(ConditionalOnFilterLayer.class.getName())
			.get("value");
		List<String> layers = Binder.get(context.getEnvironment())
			.bind("idempotency.filter.layers", Bindable.listOf(String.class))
			.orElseGet(() -> new IdempotencyFilterProperties().getLayers());
		return layers.contains(layer) ? ConditionOutcome.match("idempotency.filter.layers lists " + layer)
				: ConditionOutcome.noMatch("idempotency.filter.layers does not list " + layer);
	}

}
