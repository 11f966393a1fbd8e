// Labels, relationship types and property keys present in the database (for validating names).
CALL db.labels() YIELD label
WITH collect(label) AS labels
CALL db.relationshipTypes() YIELD relationshipType
WITH labels, collect(relationshipType) AS types
CALL db.propertyKeys() YIELD propertyKey
RETURN labels, types, collect(propertyKey) AS properties
