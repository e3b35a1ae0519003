"""Where an opening comment holds a licence: the real notices of common licences are found whole,
a short notice and the paragraphs that describe the module stay."""

from __future__ import annotations

from leanread.code.licence import licence_runs

MIT_JUSTIFIED = """#!/usr/bin/env python3
#-------------------------------------------------------------------
# tarfile.py
#-------------------------------------------------------------------
# Copyright (C) 2002 Lars Gustaebel <lars@gustaebel.de>
# All rights reserved.
#
# Permission  is  hereby granted,  free  of charge,  to  any person
# obtaining a  copy of  this software  and associated documentation
# files  (the  "Software"),  to   deal  in  the  Software   without
# restriction.
#
# THE SOFTWARE IS PROVIDED "AS  IS", WITHOUT WARRANTY OF ANY  KIND.
#""".splitlines()

MPL_BLOCK = """######################## BEGIN LICENSE BLOCK ########################
# The Original Code is Mozilla Communicator client code.
#
# The Initial Developer of the Original Code is
# Netscape Communications Corporation.
# Portions created by the Initial Developer are Copyright (C) 1998
# the Initial Developer. All Rights Reserved.
#
# Contributor(s):
#   Mark Pilgrim - port to Python
#
# This library is free software; you can redistribute it and/or
# modify it under the terms of the GNU Lesser General Public
# License as published by the Free Software Foundation.
######################### END LICENSE BLOCK #########################

# EUCTW frequency table
# Converted from big5 work""".splitlines()

DESCRIPTION_AROUND = """/*
 * zmalloc - total amount of allocated memory aware version of malloc()
 *
 * Copyright (c) 2009-Present, Redis Ltd.
 * All rights reserved.
 *
 * Licensed under your choice of the Redis Source Available License 2.0
 * (RSALv2) or the Server Side Public License v1 (SSPLv1).
 *
 * The allocator keeps a count of the bytes it handed out, read with
 * zmalloc_used_memory(), so that the server can enforce maxmemory.
 */""".splitlines()


def test_a_justified_mit_notice_is_one_run_with_its_rules_and_the_title_stays() -> None:
    assert licence_runs(MIT_JUSTIFIED) == [(4, 14)]  # line 3 (the file's name) stays


def test_an_mpl_block_with_a_contributors_paragraph_is_one_run() -> None:
    assert licence_runs(MPL_BLOCK) == [(1, 15)]


def test_a_description_above_and_below_a_notice_stays() -> None:
    assert licence_runs(DESCRIPTION_AROUND) == [(3, 9)]


def test_short_notices_stay() -> None:
    go = [
        "// Copyright 2009 The Go Authors. All rights reserved.",
        "// Use of this source code is governed by a BSD-style",
        "// license that can be found in the LICENSE file.",
    ]
    assert licence_runs(go) == []
    assert licence_runs(["// SPDX-License-Identifier: MIT", "", "// Package x parses y."]) == []


def test_notices_in_two_comments_with_a_blank_line_between_are_one_run() -> None:
    oracle = [
        "/*",
        " * Copyright (c) 2012, 2013, Oracle and/or its affiliates. All rights reserved.",
        " * This code is free software; you can redistribute it and/or modify it",
        " */",
        "",
        "/*",
        " * Written by Doug Lea and released to the public domain, as explained at",
        " * http://creativecommons.org/publicdomain/zero/1.0/",
        " */",
    ]
    assert licence_runs(oracle, first=1) == [(1, 9)]


def test_a_docstring_that_only_mentions_licences_is_not_one() -> None:
    docstring = [
        '"""Read the metadata of installed distributions.',
        "",
        "Each distribution's name, version, summary and license field are read",
        "from its METADATA file; classifiers are kept as they are, and the",
        "licence expression (PEP 639) is parsed when there is one.",
        "",
        "Copyright notices are not looked at.",
        '"""',
    ]
    assert licence_runs(docstring, first=10) == []


def test_numbers_count_from_first() -> None:
    assert licence_runs(MIT_JUSTIFIED, first=101) == [(104, 114)]
