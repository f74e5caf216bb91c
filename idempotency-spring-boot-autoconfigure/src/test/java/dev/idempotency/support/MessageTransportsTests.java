package dev.idempotency.support;

import java.lang.annotation.Annotation;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.util.List;
import java.util.function.UnaryOperator;

import dev.idempotency.core.MessageTransport;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.core.annotation.AliasFor;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link MessageTransports}, with transports of the test's own: the engine knows a
 * transport only by what it declares.
 */
class MessageTransportsTests {

	private static final StringValueResolver VERBATIM = (value) -> value;

	private final MessageTransports transports = MessageTransports
		.of(List.of(new Transport("first", FirstListener.class), new Transport("second", SecondListener.class)));

	@Test
	void listenerIdIsReadFromTheMethodsAnnotation() {
		assertThat(this.transports.listenerId(method(Listeners.class, "first"), Listeners.class)).isEqualTo("one");
		assertThat(this.transports.listenerId(method(Listeners.class, "second"), Listeners.class)).isEqualTo("two");
	}

	@Test
	void listenerIdIsReadThroughAMetaAnnotation() {
		assertThat(this.transports.listenerId(method(Listeners.class, "composed"), Listeners.class))
			.isEqualTo("composed-id");
	}

	@Test
	void listenerWithoutAnIdHasAnEmptyOne() {
		assertThat(this.transports.listenerId(method(Listeners.class, "unnamed"), Listeners.class)).isEmpty();
	}

	@Test
	void methodOfAClassLevelListenerIsNamedByTheClass() {
		assertThat(this.transports.listenerId(method(ClassLevelListener.class, "handle"), ClassLevelListener.class))
			.isEqualTo("class-id");
	}

	@Test
	void methodsOwnAnnotationWinsOverItsClasss() {
		assertThat(this.transports.listenerId(method(ClassLevelListener.class, "own"), ClassLevelListener.class))
			.isEqualTo("own-id");
	}

	@Test
	void methodWithoutListenerAnnotationHasNoListenerId() {
		assertThat(this.transports.listenerId(method(Listeners.class, "plain"), Listeners.class)).isNull();
		assertThat(MessageTransports.none().listenerId(method(Listeners.class, "first"), Listeners.class)).isNull();
	}

	@Test
	void firstRegisteredTransportWhoseAnnotationIsFoundNamesTheListener() {
		assertThat(this.transports.listenerId(method(Listeners.class, "both"), Listeners.class)).isEqualTo("one");
		MessageTransports reversed = MessageTransports
			.of(List.of(new Transport("second", SecondListener.class), new Transport("first", FirstListener.class)));
		assertThat(reversed.listenerId(method(Listeners.class, "both"), Listeners.class)).isEqualTo("two");
	}

	@Test
	void batchListenerIsAskedOfTheMethodsOwnAnnotationWithPlaceholdersResolved() {
		assertThat(this.transports.isBatchListener(method(Listeners.class, "batch"), VERBATIM)).isTrue();
		assertThat(this.transports.isBatchListener(method(Listeners.class, "first"), VERBATIM)).isFalse();
		assertThat(this.transports.isBatchListener(method(Listeners.class, "batchPlaceholder"), VERBATIM)).isFalse();
		assertThat(this.transports.isBatchListener(method(Listeners.class, "batchPlaceholder"),
				(value) -> value.equals("${batch}") ? "yes" : value))
			.isTrue();
		assertThat(this.transports.isBatchListener(method(Listeners.class, "batchPlaceholder"), (value) -> null))
			.isFalse();
	}

	@Test
	void classLevelAnnotationDoesNotMakeABatchListener() {
		assertThat(this.transports.isBatchListener(method(ClassLevelListener.class, "handle"), VERBATIM)).isFalse();
	}

	@Test
	void twoTransportsWithOneNameAreRefused() {
		assertThatIllegalStateException()
			.isThrownBy(() -> MessageTransports
				.of(List.of(new Transport("kafka", FirstListener.class), new Transport("kafka", SecondListener.class))))
			.withMessageContaining("are both named 'kafka'");
	}

	@Test
	void transportWithoutListenerAnnotationsIsRefused() {
		assertThatIllegalStateException().isThrownBy(() -> MessageTransports.of(List.of(new Transport("none"))))
			.withMessageContaining("'none'")
			.withMessageContaining("declares no listener annotation type");
	}

	@Test
	void transportsAreTheBeansOfTheApplicationContext() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton("first", new Transport("first", FirstListener.class));
		beanFactory.registerSingleton("second", new Transport("second", SecondListener.class));
		MessageTransports fromBeans = MessageTransports.from(beanFactory.getBeanProvider(MessageTransport.class));
		assertThat(fromBeans.all()).extracting(MessageTransport::name).containsExactlyInAnyOrder("first", "second");
		assertThat(fromBeans).hasToString(fromBeans.all().stream().map(MessageTransport::name).toList().toString());
	}

	private static Method method(Class<?> type, String name) {
		Method method = ReflectionUtils.findMethod(type, name, String.class);
		assertThat(method).as(name).isNotNull();
		return method;
	}

	@Target({ ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
	@Retention(RetentionPolicy.RUNTIME)
	@interface FirstListener {

		String id() default "";

		String batch() default "";

	}

	@Target({ ElementType.METHOD, ElementType.TYPE })
	@Retention(RetentionPolicy.RUNTIME)
	@interface SecondListener {

		String id() default "";

	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@FirstListener
	@interface ComposedListener {

		@AliasFor(annotation = FirstListener.class, attribute = "id")
		String name();

	}

	/** Reads {@code id} and {@code batch} of its annotation type, as a real transport would. */
	record Transport(String name, List<Class<? extends Annotation>> listenerAnnotationTypes)
			implements MessageTransport {

		@SafeVarargs
		Transport(String name, Class<? extends Annotation>... types) {
			this(name, List.of(types));
		}

		@Override
		public String listenerId(Annotation listener) {
			return (listener instanceof FirstListener first) ? first.id() : ((SecondListener) listener).id();
		}

		@Override
		public boolean isBatchListener(Annotation listener, UnaryOperator<String> placeholders) {
			return listener instanceof FirstListener first && "yes".equals(placeholders.apply(first.batch()));
		}

	}

	static class Listeners {

		@FirstListener(id = "one")
		void first(String message) {
		}

		@SecondListener(id = "two")
		void second(String message) {
		}

		@ComposedListener(name = "composed-id")
		void composed(String message) {
		}

		@FirstListener
		void unnamed(String message) {
		}

		@FirstListener(id = "one")
		@SecondListener(id = "two")
		void both(String message) {
		}

		@FirstListener(batch = "yes")
		void batch(String message) {
		}

		@FirstListener(batch = "${batch}")
		void batchPlaceholder(String message) {
		}

		void plain(String message) {
		}

	}

	@FirstListener(id = "class-id", batch = "yes")
	static class ClassLevelListener {

		void handle(String message) {
		}

		@FirstListener(id = "own-id")
		void own(String message) {
		}

	}

}
