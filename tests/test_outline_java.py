"""Java outlines on real jackson code (excerpts of jackson-databind 2.14.0, Apache-2.0): annotation
types and their elements are rows, each with its Javadoc in its range."""

from __future__ import annotations

from leanread.code.outline import outline

JSON_DESERIALIZE = """package com.fasterxml.jackson.databind.annotation;

import java.lang.annotation.*;

/**
 * Annotation use for configuring deserialization aspects, by attaching
 * to "setter" methods or fields, or to value classes.
 */
@Target({ElementType.ANNOTATION_TYPE, ElementType.METHOD, ElementType.FIELD, ElementType.TYPE, ElementType.PARAMETER})
@Retention(RetentionPolicy.RUNTIME)
@com.fasterxml.jackson.annotation.JacksonAnnotation
public @interface JsonDeserialize
{
    /**
     * Deserializer class to use for deserializing associated value.
     */
    @SuppressWarnings("rawtypes") // to work around JDK8 bug wrt Class-valued annotation properties
    public Class<? extends JsonDeserializer> using()
        default JsonDeserializer.None.class;

    /**
     * Concrete type to deserialize values as, instead of type otherwise
     * declared.
     */
    public Class<?> as() default Void.class;
}
""".splitlines()


def test_annotation_type_and_its_elements_are_rows_with_their_javadoc() -> None:
    rows = [
        (s.name, s.kind, s.first, s.last, s.line) for s in outline("JsonDeserialize.java", JSON_DESERIALIZE).symbols
    ]
    assert rows == [
        ("JsonDeserialize", "annotation", 5, 26, 12),
        ("JsonDeserialize.using", "element", 14, 19, 17),
        ("JsonDeserialize.as", "element", 21, 25, 25),
    ]
