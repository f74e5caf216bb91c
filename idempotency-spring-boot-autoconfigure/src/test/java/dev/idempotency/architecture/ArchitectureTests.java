package dev.idempotency.architecture;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.Slices;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noMethods;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package walls of DESIGN.md §4 and Spring Boot's auto-configuration style, checked on the
 * main classes of this module. Every rule refuses to pass over zero classes.
 */
class ArchitectureTests {

	private static final String ROOT = "dev.idempotency";

	private static final String ANNOTATION = ROOT + ".annotation..";

	private static final String CORE = ROOT + ".core..";

	private static final String SUPPORT = ROOT + ".support..";

	/** Every auto-configuration package: the common ones and each technology's. */
	private static final String AUTOCONFIGURE = ROOT + "..autoconfigure..";

	/** The auto-configuration the technologies share: the engine, the store choice, health, endpoint. */
	private static final String COMMON_AUTOCONFIGURE = ROOT + ".autoconfigure..";

	private static final String GUARD = ROOT + ".guard..";

	/** Adapters: each store, each transport, the outbox, the meters, the filters and the guards. */
	private static final String[] ADAPTERS = { ROOT + ".store..", ROOT + ".kafka..", ROOT + ".redis..",
			ROOT + ".rabbit..", ROOT + ".outbox..", ROOT + ".metrics..", ROOT + ".observation..", ROOT + ".filter..",
			GUARD, ROOT + ".http.." };

	/**
	 * The technology trees: each owns its code and, in its {@code autoconfigure} sub-package, its
	 * wiring, health indicator and endpoint section.
	 */
	private static final List<String> TECHNOLOGIES = List.of("store.jdbc", "store.redis", "store.redisson", "kafka",
			"redis.stream", "redis.filter", "rabbit", "outbox", "filter", "observation", "metrics", "guard", "http");

	/** Words that name one transport or feature (or its client): not in {@code core}'s names. */
	private static final Set<String> TECHNOLOGY_WORDS = Set.of("stream", "outbox", "kafka", "redis", "redisson",
			"jdbc", "rabbit", "amqp", "http", "servlet");

	private static JavaClasses classes;

	@BeforeAll
	static void importMainClasses() {
		classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages(ROOT);
		assertThat(classes).as("main classes of %s", ROOT).isNotEmpty();
		for (String layer : List.of("annotation", "core", "support", "support.jdbc", "store.jdbc", "store.redis",
				"store.redisson", "kafka", "kafka.share", "kafka.share.autoconfigure", "redis.stream", "redis.filter",
				"outbox", "outbox.jdbc", "outbox.kafka", "outbox.redis", "outbox.rabbit", "filter", "metrics",
				"observation", "guard", "autoconfigure", "autoconfigure.store",
				"autoconfigure.health", "autoconfigure.actuate", "store.jdbc.autoconfigure",
				"store.redis.autoconfigure", "store.redisson.autoconfigure", "kafka.autoconfigure",
				"redis.stream.autoconfigure", "redis.filter.autoconfigure", "outbox.autoconfigure",
				"filter.autoconfigure", "observation.autoconfigure", "metrics.autoconfigure", "redis.stream.metrics",
				"redis.stream.autoconfigure.metrics", "outbox.metrics", "outbox.autoconfigure.metrics", "rabbit",
				"rabbit.autoconfigure", "http", "http.autoconfigure")) {
			assertThat(classes.containPackage(ROOT + "." + layer)).as("package %s imported", layer).isTrue();
		}
	}

	/** Every package is a slice: no two packages depend on each other, directly or through others. */
	@Test
	void noPackageCycles() {
		check(slices().matching(ROOT + ".(**)").should().beFreeOfCycles());
	}

	@Test
	void onlyAutoconfigurePackagesDependOnSpringBoot() {
		check(noClasses().that()
			.resideOutsideOfPackage(AUTOCONFIGURE)
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework.boot.."));
	}

	@Test
	void annotationDependsOnNothingOfOursAndNoSpring() {
		check(classes().that()
			.resideInAPackage(ANNOTATION)
			.should()
			.onlyDependOnClassesThat()
			.resideInAnyPackage("java..", "org.jspecify..", ANNOTATION));
	}

	@Test
	void coreDependsOnlyOnAnnotation() {
		check(classes().that()
			.resideInAPackage(CORE)
			.should()
			.onlyDependOnClassesThat()
			.resideInAnyPackage("java..", "org.jspecify..", ANNOTATION, CORE));
	}

	/**
	 * {@code core} is every technology's: no type of one transport or feature, and no method or field
	 * named after one, such as the stream callbacks {@code DeliveryListener} had or the outbox's
	 * {@code OutboxBacklog}. They live in the technology's package.
	 */
	@Test
	void coreNamesNoTechnology() {
		check(classes().that().resideInAPackage(CORE).should(new NotNamedAfterATechnology()));
	}

	@Test
	void supportDoesNotDependOnAdaptersOrAutoconfigure() {
		check(noClasses().that()
			.resideInAPackage(SUPPORT)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(concat(ADAPTERS, AUTOCONFIGURE)));
	}

	/** A technology's tree, its auto-configuration included, depends on no other technology's. */
	@Test
	void eachTechnologyTreeDependsOnNoOtherTechnology() {
		assertThat(Slices.assignedFrom(new TechnologySlices()).transform(classes)).as("technology slices")
			.hasSize(TECHNOLOGIES.size());
		check(slices().assignedFrom(new TechnologySlices()).should().notDependOnEachOther());
	}

	/** The technologies depend on the common auto-configuration, never the reverse. */
	@Test
	void commonAutoconfigureDependsOnNoTechnology() {
		check(noClasses().that()
			.resideInAPackage(COMMON_AUTOCONFIGURE)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(TECHNOLOGIES.stream().map((technology) -> ROOT + "." + technology + "..")
				.toArray(String[]::new)));
	}

	/** An adapter's code knows no auto-configuration, not even its own technology's: that one uses it. */
	@Test
	void adaptersDoNotDependOnAutoconfigure() {
		check(noClasses().that()
			.resideInAnyPackage(ADAPTERS)
			.and()
			.resideOutsideOfPackage(AUTOCONFIGURE)
			.should()
			.dependOnClassesThat()
			.resideInAPackage(AUTOCONFIGURE));
	}

	@Test
	void onlyJdbcPackagesUseSpringJdbc() {
		check(noClasses().that()
			.resideOutsideOfPackages(ROOT + "..jdbc..", GUARD, ROOT + ".outbox.autoconfigure..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework.jdbc.."));
	}

	@Test
	void guardDependsOnlyOnCoreSharedJdbcHelpersAndSpringJdbc() {
		check(classes().that()
			.resideInAPackage(GUARD)
			.should()
			.onlyDependOnClassesThat()
			.resideInAnyPackage("java..", "javax.sql..", "org.jspecify..", "org.apache.commons.logging..", CORE,
					ROOT + ".support.jdbc..", GUARD, "org.springframework.jdbc..", "org.springframework.dao.."));
	}

	/**
	 * Micrometer only where meters are: the engine's ({@code metrics}), each technology's own
	 * ({@code <technology>.metrics}, {@code <technology>.autoconfigure.metrics}) and the observation.
	 */
	@Test
	void onlyMetricsPackagesAndObservationUseMicrometer() {
		check(noClasses().that()
			.resideOutsideOfPackages(ROOT + "..metrics..", ROOT + ".observation..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("io.micrometer.."));
	}

	@Test
	void onlyKafkaAndTheOutboxKafkaSenderUseSpringKafka() {
		check(noClasses().that()
			.resideOutsideOfPackages(ROOT + ".kafka..", ROOT + ".outbox.kafka..", ROOT + ".outbox.autoconfigure..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework.kafka.."));
	}

	@Test
	void onlyKafkaAndTheOutboxKafkaSenderUseTheKafkaClient() {
		check(noClasses().that()
			.resideOutsideOfPackages(ROOT + ".kafka..", ROOT + ".outbox.kafka..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.apache.kafka.."));
	}

	@Test
	void onlyTheRabbitPackagesUseSpringAmqpAndTheRabbitClient() {
		check(noClasses().that()
			.resideOutsideOfPackages(ROOT + ".rabbit..", ROOT + ".outbox.rabbit..", ROOT + ".outbox.autoconfigure..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.amqp..", "org.springframework.boot.amqp..", "com.rabbitmq.."));
	}

	@Test
	void onlyRedisPackagesUseTheRedisClients() {
		check(noClasses().that()
			.resideOutsideOfPackages(ROOT + ".store.redis..", ROOT + ".redis..", ROOT + ".outbox.redis..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("io.lettuce..", "redis.clients.."));
	}

	@Test
	void onlyRedisPackagesUseSpringDataRedis() {
		check(noClasses().that()
			.resideOutsideOfPackages(ROOT + ".store.redis..", ROOT + ".redis..", ROOT + ".outbox.redis..",
					ROOT + ".outbox.autoconfigure..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework.data.redis.."));
	}

	/** The servlet stack (Spring MVC, Spring Web, the servlet API) only in the HTTP transport's tree. */
	@Test
	void onlyTheHttpTransportUsesSpringWebAndTheServletApi() {
		check(noClasses().that()
			.resideOutsideOfPackage(ROOT + ".http..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.web..", "org.springframework.http..", "jakarta.servlet.."));
	}

	@Test
	void onlyTheHttpTransportUsesSpringSecurity() {
		check(noClasses().that()
			.resideOutsideOfPackage(ROOT + ".http..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework.security.."));
	}

	@Test
	void outboxApiDoesNotDependOnItsImplementations() {
		check(noClasses().that()
			.resideInAPackage(ROOT + ".outbox")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(ROOT + ".outbox.jdbc..", ROOT + ".outbox.kafka..", ROOT + ".outbox.redis..",
					ROOT + ".outbox.rabbit.."));
	}

	@Test
	void outboxImplementationsDoNotDependOnEachOther() {
		check(slices().assignedFrom(new OutboxImplementationSlices()).should().notDependOnEachOther());
	}

	@Test
	void onlyTheLocalFiltersUseGuavaAndRoaringBitmap() {
		check(noClasses().that()
			.resideOutsideOfPackage(ROOT + ".filter..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("com.google.common..", "org.roaringbitmap.."));
	}

	@Test
	void onlyTheRedissonStoreUsesRedisson() {
		check(noClasses().that()
			.resideOutsideOfPackage(ROOT + ".store.redisson..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.redisson.."));
	}

	@Test
	void autoConfigurationsArePublicAndFinal() {
		check(classes().that()
			.areAnnotatedWith(AutoConfiguration.class)
			.should()
			.bePublic()
			.andShould()
			.haveModifier(JavaModifier.FINAL));
	}

	@Test
	void autoConfigurationsAreListedInTheImportsFile() throws IOException {
		List<String> listed;
		try (InputStream in = new ClassPathResource(
				"META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")
			.getInputStream()) {
			listed = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
				.map(String::trim)
				.filter((line) -> !line.isEmpty() && !line.startsWith("#"))
				.toList();
		}
		List<String> annotated = classes.stream()
			.filter((javaClass) -> javaClass.isAnnotatedWith(AutoConfiguration.class))
			.map(JavaClass::getName)
			.toList();
		assertThat(annotated).isNotEmpty();
		assertThat(listed).containsExactlyInAnyOrderElementsOf(annotated);
	}

	@Test
	void importedConfigurationsArePackagePrivate() {
		check(classes().that()
			.resideInAPackage(AUTOCONFIGURE)
			.and()
			.areAnnotatedWith(Configuration.class)
			.and()
			.areNotAnnotatedWith(AutoConfiguration.class)
			.should()
			.bePackagePrivate());
	}

	@Test
	void importedConfigurationsDoNotProxyBeanMethods() {
		check(classes().that()
			.resideInAPackage(AUTOCONFIGURE)
			.and()
			.areAnnotatedWith(Configuration.class)
			.should(new NotProxyBeanMethods()));
	}

	@Test
	void beanMethodsInAutoconfigureAreNotPublic() {
		check(methods().that()
			.areAnnotatedWith(Bean.class)
			.and()
			.areDeclaredInClassesThat()
			.resideInAPackage(AUTOCONFIGURE)
			.should()
			.notBePublic());
	}

	@Test
	void beanMethodsAreNotConditionalOnClass() {
		check(noMethods().that()
			.areAnnotatedWith(Bean.class)
			.and()
			.areDeclaredInClassesThat()
			.resideInAPackage(AUTOCONFIGURE)
			.should()
			.beAnnotatedWith(ConditionalOnClass.class));
	}

	@Test
	void conditionalOnMissingBeanDoesNotRepeatTheReturnType() {
		check(methods().that()
			.areAnnotatedWith(Bean.class)
			.and()
			.areAnnotatedWith(ConditionalOnMissingBean.class)
			.and()
			.areDeclaredInClassesThat()
			.resideInAPackage(AUTOCONFIGURE)
			.should(new NotRepeatReturnTypeInConditionalOnMissingBean()));
	}

	/**
	 * Issue 28: a class users may construct has one public constructor with parameters (plus, where
	 * it has defaults, one without), not a telescope of them; the 0.1 constructors kept for upgrades
	 * are deprecated. Exceptions keep the JDK's (message) / (message, cause) pair.
	 */
	@Test
	void publicClassesHaveNoTelescopingConstructors() {
		check(classes().that()
			.arePublic()
			.and()
			.areNotAssignableTo(Throwable.class)
			.should(new NotHaveTelescopingConstructors()));
	}

	private static void check(ArchRule rule) {
		rule.allowEmptyShould(false).check(classes);
	}

	private static String[] concat(String[] packages, String... more) {
		String[] all = Arrays.copyOf(packages, packages.length + more.length);
		System.arraycopy(more, 0, all, packages.length, more.length);
		return all;
	}

	/**
	 * Slices of the technology trees ({@link #TECHNOLOGIES}), each with its sub-packages, its
	 * {@code autoconfigure} included; other packages are not sliced.
	 */
	private static final class TechnologySlices implements SliceAssignment {

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
			String packageName = javaClass.getPackageName();
			for (String technology : TECHNOLOGIES) {
				String root = ROOT + "." + technology;
				if (packageName.equals(root) || packageName.startsWith(root + ".")) {
					return SliceIdentifier.of(technology);
				}
			}
			return SliceIdentifier.ignore();
		}

		@Override
		public String getDescription() {
			return "technology trees " + TECHNOLOGIES;
		}

	}

	/** The outbox's implementations (outbox.jdbc, outbox.kafka, ...), not its auto-configuration. */
	private static final class OutboxImplementationSlices implements SliceAssignment {

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
			String packageName = javaClass.getPackageName();
			String prefix = ROOT + ".outbox.";
			if (!packageName.startsWith(prefix)) {
				return SliceIdentifier.ignore();
			}
			String implementation = packageName.substring(prefix.length()).split("\\.")[0];
			return "autoconfigure".equals(implementation) ? SliceIdentifier.ignore()
					: SliceIdentifier.of("outbox." + implementation);
		}

		@Override
		public String getDescription() {
			return "outbox implementations";
		}

	}

	/**
	 * Neither the type's simple name nor the name of a method or field it declares has a word (in
	 * camel case) that names a technology ({@link #TECHNOLOGY_WORDS}).
	 */
	private static final class NotNamedAfterATechnology extends ArchCondition<JavaClass> {

		private static final Pattern WORD_BOUNDARY = Pattern
			.compile("(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[^A-Za-z0-9]+");

		NotNamedAfterATechnology() {
			super("not be named after a technology, nor declare a method or field named after one");
		}

		@Override
		public void check(JavaClass javaClass, ConditionEvents events) {
			List<String> names = new ArrayList<>();
			names.add(javaClass.getSimpleName());
			// Synthetic members ($) repeat the names of the members they serve.
			javaClass.getMethods()
				.stream()
				.map(JavaMethod::getName)
				.filter((name) -> !name.contains("$"))
				.forEach(names::add);
			javaClass.getFields()
				.stream()
				.map(JavaField::getName)
				.filter((name) -> !name.contains("$"))
				.forEach(names::add);
			List<String> named = names.stream().filter(NotNamedAfterATechnology::namesATechnology).toList();
			events.add(new SimpleConditionEvent(javaClass, named.isEmpty(),
					javaClass.getName() + " names a technology: " + named));
		}

		private static boolean namesATechnology(String name) {
			return Arrays.stream(WORD_BOUNDARY.split(name))
				.anyMatch((word) -> TECHNOLOGY_WORDS.contains(word.toLowerCase(Locale.ROOT)));
		}

	}

	/**
	 * No public, not deprecated constructor with parameters whose parameter types begin another
	 * such constructor's.
	 */
	private static final class NotHaveTelescopingConstructors extends ArchCondition<JavaClass> {

		NotHaveTelescopingConstructors() {
			super("not have a public constructor whose parameters begin another public constructor's");
		}

		@Override
		public void check(JavaClass javaClass, ConditionEvents events) {
			List<List<String>> parameterLists = javaClass.getConstructors()
				.stream()
				.filter((constructor) -> constructor.getModifiers().contains(JavaModifier.PUBLIC))
				.filter((constructor) -> !constructor.isAnnotatedWith(Deprecated.class))
				.map((constructor) -> constructor.getRawParameterTypes().stream().map(JavaClass::getName).toList())
				.filter((parameters) -> !parameters.isEmpty())
				.toList();
			boolean telescopes = false;
			for (List<String> shorter : parameterLists) {
				for (List<String> longer : parameterLists) {
					if (longer.size() > shorter.size() && longer.subList(0, shorter.size()).equals(shorter)) {
						telescopes = true;
						events.add(SimpleConditionEvent.violated(javaClass, javaClass.getName()
								+ " has telescoping constructors " + shorter + " and " + longer));
					}
				}
			}
			if (!telescopes) {
				events.add(SimpleConditionEvent.satisfied(javaClass, javaClass.getName() + " has one constructor"));
			}
		}

	}

	/** Declares {@code @Configuration(proxyBeanMethods = false)}. */
	private static final class NotProxyBeanMethods extends ArchCondition<JavaClass> {

		NotProxyBeanMethods() {
			super("declare @Configuration(proxyBeanMethods = false)");
		}

		@Override
		public void check(JavaClass javaClass, ConditionEvents events) {
			boolean proxies = javaClass.getAnnotationOfType(Configuration.class).proxyBeanMethods();
			events.add(new SimpleConditionEvent(javaClass, !proxies,
					javaClass.getName() + " has proxyBeanMethods = " + proxies));
		}

	}

	/** Boot's rule: {@code @ConditionalOnMissingBean} alone already means the return type. */
	private static final class NotRepeatReturnTypeInConditionalOnMissingBean extends ArchCondition<JavaMethod> {

		NotRepeatReturnTypeInConditionalOnMissingBean() {
			super("not name only their own return type in @ConditionalOnMissingBean");
		}

		@Override
		public void check(JavaMethod method, ConditionEvents events) {
			ConditionalOnMissingBean condition = method.getAnnotationOfType(ConditionalOnMissingBean.class);
			String returnType = method.getRawReturnType().getName();
			boolean repeats = (condition.value().length == 1 && condition.value()[0].getName().equals(returnType))
					|| (condition.type().length == 1 && condition.type()[0].equals(returnType));
			events.add(new SimpleConditionEvent(method, !repeats,
					method.getFullName() + " repeats its return type in @ConditionalOnMissingBean"));
		}

	}

}
