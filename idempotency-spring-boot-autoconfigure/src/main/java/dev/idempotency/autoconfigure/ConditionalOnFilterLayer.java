package dev.idempotency.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Matches when {@code idempotency.filter.layers} lists the layer. Common to the technologies that
 * contribute a layer.
 *
 * @since 0.2.0
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE, ElementType.METHOD })
@Documented
@Conditional(OnFilterLayerCondition.class)
public @interface ConditionalOnFilterLayer {

	/**
	 * The layer's name.
	 * @return the name
	 */
	String value();

}
